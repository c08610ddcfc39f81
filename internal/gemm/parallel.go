package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ForEach calls f(i) for i in [0, n), spread over up to GOMAXPROCS
// goroutines in contiguous chunks when work, an estimate of the operations
// of all n calls, is large enough to pay for them. The calls must write
// disjoint memory: then the result does not depend on the split, and is
// the serial loop's bit for bit.
func ForEach(n, work int, f func(i int)) { ForEaches(n, work, eachFunc(f)) }

// An Eacher does work item by item: what ForEaches splits.
type Eacher interface{ Each(i int) }

type eachFunc func(i int)

func (f eachFunc) Each(i int) { f(i) }

// minWork is the least work ForEach gives each goroutine: below it, a
// goroutine costs more than it saves.
const minWork = 1 << 16

// ForEaches is ForEach over e.Each: an Eacher kept by the caller splits
// without allocating, as a Ranger does for ForRanges.
func ForEaches(n, work int, e Eacher) {
	p := min(runtime.GOMAXPROCS(0), n, work/minWork)
	if p <= 1 {
		for i := 0; i < n; i++ {
			e.Each(i)
		}
		return
	}
	fanOut(n, p, job{e: e})
}

// A Ranger does work over a range of elements: what ForRanges splits.
type Ranger interface{ Range(lo, hi int) }

// ForRanges splits [0, n) into up to GOMAXPROCS contiguous ranges of at
// least minLen elements each and calls r.Range on each, concurrently. The
// calls must write disjoint memory: then the result is the serial call's
// r.Range(0, n), bit for bit. A Ranger kept by the caller (a pointer to
// a struct it reuses) splits without allocating; a closure, which the
// workers may run, would be allocated at every call.
func ForRanges(n, minLen int, r Ranger) {
	p := min(runtime.GOMAXPROCS(0), n/max(minLen, 1))
	if p <= 1 {
		if n > 0 {
			r.Range(0, n)
		}
		return
	}
	fanOut(n, p, job{r: r})
}

// A job is what fanOut splits: r.Range over each range or, if r is nil,
// e.Each of every index in it. (An Eacher wrapped in a Ranger would be
// allocated at every call.)
type job struct {
	r Ranger
	e Eacher
}

func (j job) run(lo, hi int) {
	if j.r != nil {
		j.r.Range(lo, hi)
		return
	}
	for i := lo; i < hi; i++ {
		j.e.Each(i)
	}
}

// fanOut runs j on p > 1 contiguous ranges of [0, n), the first on this
// goroutine and each other on a worker, and waits for them all.
func fanOut(n, p int, j job) {
	st, ok := fans.Get().(*fanState)
	if !ok {
		st = new(fanState)
	}
	p = min(p, len(st.parts))
	st.wg.Add(p - 1)
	for k := 1; k < p; k++ {
		st.parts[k] = rangeTask{j: j, lo: k * n / p, hi: (k + 1) * n / p, wg: &st.wg}
		submit(&st.parts[k])
	}
	j.run(0, n/p)
	help()
	st.wg.Wait()
	for k := range st.parts[:p] {
		st.parts[k] = rangeTask{}
	}
	fans.Put(st)
}

// rangeTask is one range of a fanOut call.
type rangeTask struct {
	j      job
	lo, hi int
	wg     *sync.WaitGroup
}

func (t *rangeTask) work() {
	t.j.run(t.lo, t.hi)
	t.wg.Done()
}

// fanState is the reusable memory of one fanOut call.
type fanState struct {
	parts [64]rangeTask
	wg    sync.WaitGroup
}

var fans sync.Pool // *fanState

// A task is a share of a split call, run by a worker.
type task interface{ work() }

// The workers run the shares of split calls. A worker polls for tasks
// for spinFor after its last one before it sleeps: on the 2-core VM, a
// goroutine handed to a sleeping thread while the caller computed its own
// share started 0.1–3 ms later (longer than most of a CGAN step's
// products take), so a call split in two took as long as one unsplit.
// Polling keeps the second core awake between the products of a step;
// it yields the processor at every turn, and at most GOMAXPROCS-1 workers
// poll, so it delays no other goroutine. A caller whose shares no worker
// has taken yet runs them itself (help), so a split call never waits for
// a thread to wake.
var (
	queue       chan task     // tasks; nobody blocks receiving from it
	wake        chan struct{} // sleeping workers wait here
	workersOnce sync.Once
	spinning    atomic.Int32 // workers polling queue
)

const spinFor = time.Millisecond

// submit queues t for a worker, waking one if none is polling.
func submit(t task) {
	workersOnce.Do(startWorkers)
	queue <- t
	if spinning.Load() == 0 {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// help runs queued tasks until there are none.
func help() {
	for {
		select {
		case t := <-queue:
			t.work()
		default:
			return
		}
	}
}

func startWorkers() {
	n := runtime.NumCPU()
	queue = make(chan task, 64*n)
	wake = make(chan struct{}, n)
	for i := 0; i < n; i++ {
		go worker()
	}
}

func worker() {
	for range wake {
		if int(spinning.Add(1)) > runtime.GOMAXPROCS(0)-1 {
			spinning.Add(-1)
			continue
		}
		last := time.Now()
		for polls := 1; ; polls++ {
			select {
			case t := <-queue:
				t.work()
				last = time.Now()
				continue
			default:
			}
			if polls%64 == 0 && time.Since(last) > spinFor {
				break
			}
			runtime.Gosched()
		}
		spinning.Add(-1)
		// A task queued after the last poll, while spinning still
		// counted this worker, woke nobody: run it.
		help()
	}
}
