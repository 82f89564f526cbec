// Package drivertest runs examples/sqlstore against the database/sql
// drivers it supports: modernc.org/sqlite and github.com/jackc/pgx/v5
// (PostgreSQL, where RECAP_TEST_POSTGRES_DSN names a server). It is a
// module of its own so that the store's module requires no driver: a
// program that imports the store downloads only the driver it imports, and
// keeps its own go line.
package drivertest
