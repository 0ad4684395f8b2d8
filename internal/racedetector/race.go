//go:build race

// Package racedetector tells tests whether the race detector is on: it
// makes some work many times slower, and sync.Pool drops a share of what
// is put in it on purpose, so tests that count time or allocations take
// it into account.
package racedetector

// Enabled reports whether the binary was built with -race.
const Enabled = true
