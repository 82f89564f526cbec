package sqlstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestNeedDriver(t *testing.T) {
	if err := needDriver("no-such-driver", "example.com/driver"); err == nil || !strings.Contains(err.Error(), `import _ "example.com/driver"`) {
		t.Errorf("err = %v, want one naming the import", err)
	}
}

// codeErr and stateErr stand for the drivers' error types, read through
// the methods they export.
type codeErr int

func (e codeErr) Error() string { return fmt.Sprintf("sqlite %d", int(e)) }
func (e codeErr) Code() int     { return int(e) }

type stateErr string

func (e stateErr) Error() string    { return "pg " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

func TestDriverErrors(t *testing.T) {
	busy := fmt.Errorf("query: %w", codeErr(sqliteBusy|2<<8)) // SQLITE_BUSY_SNAPSHOT, wrapped
	if got := sqliteCode(busy) & 0xff; got != sqliteBusy {
		t.Errorf("sqliteCode(busy) = %d", got)
	}
	if got := sqliteCode(errors.New("other")); got != -1 {
		t.Errorf("sqliteCode(other) = %d, want -1", got)
	}
	if !adminShutdown(fmt.Errorf("exec: %w", stateErr("57P01"))) || adminShutdown(stateErr("23505")) || adminShutdown(errors.New("x")) {
		t.Error("adminShutdown misreads SQLSTATEs")
	}
}
