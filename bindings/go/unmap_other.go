//go:build !windows

package abloom

// Elsewhere a mapped file can be replaced or removed while it is mapped: Close leaves the
// unmapping to the cleanup (unmap_windows.go says why Windows cannot).
const closeUnmapsAtOnce = false
