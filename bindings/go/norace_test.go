//go:build !race

package abloom

const raceEnabled = false
