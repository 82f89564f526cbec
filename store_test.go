package recap_test

import (
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) recap.Store { return recap.NewMemoryStore() })
}

func TestZeroMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) recap.Store { return new(recap.MemoryStore) })
}
