package abloom

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// The runtime behaviour pin.go's guard relies on: a stop of the world (waitPinned) does not
// return while a goroutine is pinned (procPin), however long it stays pinned.
func TestWorldStopWaitsForPinnedGoroutine(t *testing.T) {
	// The pinned goroutine holds its P; the stopping one needs another.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	const hold = 100 * time.Millisecond
	var pinned, returned atomic.Bool
	var took time.Duration
	sawReturn := make(chan bool)
	go func() {
		procPin()
		pinned.Store(true)
		deadline := time.Now().Add(hold)
		for time.Now().Before(deadline) {
		}
		r := returned.Load()
		procUnpin()
		sawReturn <- r
	}()
	stopped := make(chan struct{})
	go func() {
		for !pinned.Load() {
			runtime.Gosched()
		}
		start := time.Now()
		waitPinned()
		took = time.Since(start)
		returned.Store(true)
		close(stopped)
	}()
	if <-sawReturn {
		t.Fatal("waitPinned returned while a goroutine was pinned")
	}
	<-stopped
	if took < hold/2 {
		t.Fatalf("waitPinned took %v while a goroutine stayed pinned for about %v", took, hold)
	}
}
