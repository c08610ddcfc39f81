package compute

import "github.com/positgan/positgan/internal/gemm"

// An Eacher does work item by item: what ForEaches splits.
type Eacher = gemm.Eacher

// A Ranger does work over a range of elements: what ForRanges splits.
type Ranger = gemm.Ranger

// ForEaches calls e.Each(i) for i in [0, n), spread over up to GOMAXPROCS
// goroutines in contiguous chunks when work, an estimate of the operations
// of all n calls, is large enough to pay for them. The calls must write
// disjoint memory: then the result does not depend on the split, and is
// the serial loop's bit for bit. An Eacher kept by the caller splits
// without allocating.
func ForEaches(n, work int, e Eacher) { gemm.ForEaches(n, work, e) }

// ForRanges splits [0, n) into up to GOMAXPROCS contiguous ranges of at
// least minLen elements each and calls r.Range on each, concurrently. The
// calls must write disjoint memory: then the result is the serial call's
// r.Range(0, n), bit for bit. A Ranger kept by the caller (a pointer to a
// struct it reuses) splits without allocating; a closure would be
// allocated at every call.
func ForRanges(n, minLen int, r Ranger) { gemm.ForRanges(n, minLen, r) }
