package drivertest_test

import (
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for OpenPostgres
	_ "modernc.org/sqlite"             // the "sqlite" driver, for OpenSQLite
)
