package storetest_test

import (
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/storetest"
)

// doc:storetest
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) recap.Store {
		return recap.NewMemoryStore() // a new, empty store of yours
	})
}

// end doc:storetest
