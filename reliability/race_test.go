//go:build race

package reliability

// raceEnabled: the race detector makes decoding a megabyte of JSON about
// twenty times slower; tests that only need the size scale down with it.
const raceEnabled = true
