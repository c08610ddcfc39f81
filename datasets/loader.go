package datasets

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// A Loader serves a Dataset as batches in a seeded random order.
//
// Each epoch visits the samples in a fresh permutation, which depends only
// on the seed and the epoch number. Every batch is full: the last
// Len mod BatchSize samples of each epoch's permutation are left out, so
// every sample is served at most once per epoch (exactly once when the
// batch size divides Len). A Loader is not safe for concurrent use.
type Loader struct {
	ds    Dataset
	batch int
	seed  uint64

	epoch int
	next  int     // index in perm of the next sample to serve
	perm  []int32 // permutation of the current epoch

	images []float32
	labels []int
}

// NewLoader returns a Loader serving batches of batchSize samples of ds in
// an order drawn from seed. The batch size must be in [1, ds.Len()].
func NewLoader(ds Dataset, batchSize int, seed uint64) (*Loader, error) {
	n := ds.Len()
	if batchSize < 1 || batchSize > n {
		return nil, fmt.Errorf("datasets: batch size %d for a data set of %d samples, want 1 to %[2]d", batchSize, n)
	}
	if int64(n) > 1<<31-1 {
		return nil, fmt.Errorf("datasets: %d samples, more than a Loader handles", n)
	}
	l := &Loader{
		ds:     ds,
		batch:  batchSize,
		seed:   seed,
		perm:   make([]int32, n),
		images: make([]float32, batchSize*ds.Shape().Size()),
		labels: make([]int, batchSize),
	}
	l.shuffle()
	return l, nil
}

// BatchSize returns the number of samples in a batch.
func (l *Loader) BatchSize() int { return l.batch }

// BatchesPerEpoch returns the number of batches in an epoch,
// ⌊Len/BatchSize⌋.
func (l *Loader) BatchesPerEpoch() int { return len(l.perm) / l.batch }

// Epoch returns the epoch of the last batch served (0 before the first).
func (l *Loader) Epoch() int { return l.epoch }

// Next returns the next batch: the images, BatchSize samples of
// ds.Shape().Size() values in (N, C, H, W) order, normalized to [-1, 1],
// and their labels. The slices are overwritten by the following call.
func (l *Loader) Next() (images []float32, labels []int) {
	if l.next+l.batch > len(l.perm) {
		l.epoch++
		l.next = 0
		l.shuffle()
	}
	size := l.ds.Shape().Size()
	aug, _ := l.ds.(EpochImager)
	for k, i := range l.perm[l.next : l.next+l.batch] {
		if aug != nil {
			aug.ImageAt(l.images[k*size:(k+1)*size], int(i), l.epoch)
		} else {
			l.ds.Image(l.images[k*size:(k+1)*size], int(i))
		}
		l.labels[k] = l.ds.Label(int(i))
	}
	l.next += l.batch
	return l.images, l.labels
}

// LoaderState is the position of a Loader: enough to resume the exact
// sequence of batches. Len and BatchSize are checked on Restore.
type LoaderState struct {
	Seed      uint64
	Epoch     int
	Next      int // samples of the epoch served so far
	Len       int // of the data set
	BatchSize int
}

// State returns the Loader's position.
func (l *Loader) State() LoaderState {
	return LoaderState{Seed: l.seed, Epoch: l.epoch, Next: l.next, Len: len(l.perm), BatchSize: l.batch}
}

// Restore moves the Loader to a position State returned, by this Loader or
// by another over a data set of the same length with the same batch size.
// The following batches are those that followed when the state was taken.
func (l *Loader) Restore(s LoaderState) error {
	switch {
	case s.Len != len(l.perm):
		return fmt.Errorf("datasets: loader state is for a data set of %d samples, this one has %d", s.Len, len(l.perm))
	case s.BatchSize != l.batch:
		return fmt.Errorf("datasets: loader state is for batches of %d, this loader's are %d", s.BatchSize, l.batch)
	case s.Epoch < 0 || s.Next < 0 || s.Next > s.Len:
		return fmt.Errorf("datasets: bad loader state: epoch %d, sample %d of %d", s.Epoch, s.Next, s.Len)
	}
	l.seed, l.epoch, l.next = s.Seed, s.Epoch, s.Next
	l.shuffle()
	return nil
}

// shuffle sets perm to the permutation of the current epoch.
func (l *Loader) shuffle() { permute(l.perm, l.seed, l.epoch) }

// permute sets perm to a permutation of [0, len(perm)) that depends only
// on seed and epoch: a Fisher–Yates shuffle of the identity driven by
// ChaCha8 keyed with both. The algorithms are fixed here (not left to
// math/rand), so the order never changes with the Go version.
func permute(perm []int32, seed uint64, epoch int) {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[0:], seed)
	binary.LittleEndian.PutUint64(key[8:], uint64(epoch))
	copy(key[16:], "positgan shuffle")
	r := rand.NewChaCha8(key)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := uintn(r, uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
}

// uintn returns a uniform random integer in [0, n), n > 0, by Lemire's
// multiply-and-reject method (unbiased).
func uintn(r *rand.ChaCha8, n uint64) uint64 {
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}
