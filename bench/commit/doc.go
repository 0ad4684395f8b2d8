// Package commit holds the benchmark of the bolt store's group commit
// against raw bbolt, in one run:
//
//	go test -run '^$' -bench GroupCommit -benchtime 2s ./bench/commit
//
// Every sub-benchmark runs 32 concurrent writers (RunParallel with a
// parallelism of 16 per core on the 2-core reference machine; on other
// machines the writer count is 16×GOMAXPROCS) on a fresh file with fsync
// on every commit:
//
//   - raw-bbolt-batch: bbolt's own DB.Batch putting a value of the size
//     of a stored checkout session record: the ceiling of a batched
//     writer on this disk.
//   - store-put: storage/bolt's Update putting the same value: the cost
//     of the storage layer and its group commit.
//   - checkout-create: checkout.Service.Create on storage/bolt: options
//     computed, the session and its widget token written, the view
//     rendered, acknowledged only once durable.
//
// The three alternate for three rounds in one run (round=1..3), so that a
// slow phase of a shared machine's disk hits all three alike; compare
// ns/op within a round. The target is checkout-create at ≥ 0.8×
// raw-bbolt-batch's operations per second; BENCHMARKS.md records the
// target ("Targets") and the figures ("Current figures").
package commit
