//go:build race

package abloom

// raceEnabled: the tests run under the race detector, about ten times slower per key; the
// randomized cross-checks then use fewer keys (each still checks every shape).
const raceEnabled = true
