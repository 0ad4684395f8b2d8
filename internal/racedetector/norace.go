//go:build !race

package racedetector

// Enabled reports whether the binary was built with -race.
const Enabled = false
