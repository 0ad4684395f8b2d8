package memory_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

func BenchmarkMemory(b *testing.B) {
	storagetest.Benchmark(b, func(*testing.B) storage.Store { return memory.New() })
}
