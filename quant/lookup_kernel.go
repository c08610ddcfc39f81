package quant

import (
	"math"
	"math/rand/v2"
)

// A locator counts how many of a sorted list of float32 keys (see key32)
// are at most a given key, with one bucket lookup and, in the common case,
// two branch-free comparisons.
type locator struct {
	// keys is ascending and followed by locSentinels copies of
	// 0xffffffff, above every key of a non-NaN float32.
	keys  []uint32
	base  []uint32 // base[b] = #keys whose key>>shift < b, for b in [0, 1<<(32-shift)]
	shift uint
}

const locSentinels = 2

// newLocator returns a locator for the ascending keys. It picks the widest
// buckets (fewest, so the bucket table stays in cache) in which no bucket
// holds more than two keys, down to 2^16 buckets.
func newLocator(keys []uint32) locator {
	shift := uint(20)
	for ; shift > 16; shift-- {
		crowded := false
		for i := 2; i < len(keys); i++ {
			if keys[i]>>shift == keys[i-2]>>shift {
				crowded = true
				break
			}
		}
		if !crowded {
			break
		}
	}
	l := locator{keys: make([]uint32, len(keys)+locSentinels), base: make([]uint32, 1<<(32-shift)+1), shift: shift}
	copy(l.keys, keys)
	for i := len(keys); i < len(l.keys); i++ {
		l.keys[i] = math.MaxUint32
	}
	j := 0
	for b := range l.base {
		for j < len(keys) && uint64(keys[j])>>shift < uint64(b) {
			j++
		}
		l.base[b] = uint32(j)
	}
	return l
}

// count returns the number of keys <= k, for the key of a non-NaN float32.
func (l *locator) count(k uint32) int {
	b := k >> l.shift
	j, e := l.base[b], l.base[b+1]
	if e-j > locSentinels {
		// A crowded bucket: binary search for the first key > k.
		for j < e {
			h := j + (e-j)/2
			if l.keys[h] <= k {
				j = h + 1
			} else {
				e = h
			}
		}
		return int(j)
	}
	// Keys past the bucket (or the sentinels) are above k, so two steps
	// suffice; each adds 1 if keys[j] <= k, without a branch.
	j += uint32((uint64(l.keys[j]) - uint64(k) - 1) >> 63)
	j += uint32((uint64(l.keys[j]) - uint64(k) - 1) >> 63)
	return int(j)
}

// key32 maps float32 bit patterns to integers in the order of their
// values, -0 just below +0 and the NaNs outside ±Inf.
func key32(b uint32) uint32 { return b ^ (uint32(int32(b)>>31) | 1<<31) }

// unkey32 is the inverse of key32, returning the float32.
func unkey32(k uint32) float32 {
	if k>>31 == 1 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

// key64 is key32 for float64 bit patterns.
func key64(b uint64) uint64 { return b ^ (uint64(int64(b)>>63) | 1<<63) }

// unkey64 is the inverse of key64, returning the float64.
func unkey64(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// A fastTable rounds with one bucket lookup: bucket k>>shift of the
// float32 key k holds the index j of the first value it can round to and
// the key t of the one threshold inside the bucket (0xffffffff if none), so
// that the index is j + (k >= t). Buckets with two or more thresholds, and
// those holding ±Inf or NaN keys, are marked crowded (j = 0xffffffff) and
// left to Round.
type fastTable struct {
	buckets []uint64 // j<<32 | t
	shift   uint
}

const crowded = math.MaxUint32

// newFastTable picks the widest buckets, 2^16 at most, in which no
// threshold shares its bucket with another.
func newFastTable(thresholds []uint32) fastTable {
	shift := uint(24)
	for ; shift > 16; shift-- {
		ok := true
		for i := 1; i < len(thresholds); i++ {
			if thresholds[i]>>shift == thresholds[i-1]>>shift {
				ok = false
				break
			}
		}
		if ok {
			break
		}
	}
	ft := fastTable{buckets: make([]uint64, 1<<(32-shift)), shift: shift}
	j := 0
	for b := range ft.buckets {
		lo, hi := uint64(b)<<shift, uint64(b+1)<<shift // keys of the bucket: [lo, hi)
		for j < len(thresholds) && uint64(thresholds[j]) < lo {
			j++
		}
		n := 0
		for n+j < len(thresholds) && uint64(thresholds[j+n]) < hi {
			n++
		}
		t := uint64(math.MaxUint32)
		if n == 1 {
			t = uint64(thresholds[j])
		}
		if n > 1 || lo <= uint64(key32(math.Float32bits(float32(math.Inf(-1))))) || hi > uint64(key32(math.Float32bits(math.MaxFloat32))) {
			ft.buckets[b] = crowded << 32
			continue
		}
		ft.buckets[b] = uint64(j)<<32 | t
	}
	return ft
}

// RoundSlice sets dst[i] = Round(src[i]).
func (t *lookup) RoundSlice(dst, src []float32) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	dst = dst[:len(src)]
	out, buckets, shift := t.out, t.fast.buckets, t.fast.shift
	for i, x := range src {
		b := math.Float32bits(x)
		k := b ^ (uint32(int32(b)>>31) | 1<<31)
		e := buckets[k>>shift]
		j := e >> 32
		if j == crowded {
			dst[i] = t.Round(x)
			continue
		}
		// + 1 if the bucket's threshold is <= k, without a branch.
		j += (e&crowded - uint64(k) - 1) >> 63
		dst[i] = out[j]
	}
}

// RoundSliceStochastic rounds each src[i] to one of the two values that
// bracket it, the upper one with probability (x-lo)/(hi-lo), computed in
// float64 and compared with 53 random bits (one rng.Uint64 per finite
// element). Values below the smallest or above the largest saturate;
// ±Inf and NaN round as Round rounds them and use no random bits.
func (t *lookup) RoundSliceStochastic(dst, src []float32, rng *rand.PCG) {
	if len(dst) != len(src) {
		panic(errLength)
	}
	dst = dst[:len(src)]
	if len(t.vals) == 1 {
		t.RoundSlice(dst, src)
		return
	}
	vals, out, last := t.vals, t.out, uint64(len(t.vals)-1)
	buckets, shift := t.fastBelow.buckets, t.fastBelow.shift
	for i, x := range src {
		b := math.Float32bits(x)
		k := b ^ (uint32(int32(b)>>31) | 1<<31)
		e := buckets[k>>shift]
		j := e >> 32 // values <= x
		if j == crowded {
			if b&0x7fffffff >= 0x7f800000 {
				dst[i] = float32(t.special(b).val)
				continue
			}
			j = uint64(t.below.count(k))
		} else {
			j += (e&crowded - uint64(k) - 1) >> 63
		}
		// Below the smallest value j is 0, above the largest n; clamped
		// to [1, n-1], p comes out < 0 and >= 1, so both saturate.
		jj := min(max(j, 1), last)
		lo, hi := vals[jj-1], vals[jj]
		p := (float64(x) - lo) / (hi - lo)
		if p != p { // lo = -Inf: never chosen
			p = 1
		}
		u := float64(float64(rng.Uint64()>>11) * 0x1p-53) // float64(…): not fused into u-p on arm64
		dst[i] = out[jj-1+math.Float64bits(u-p)>>63]      // + 1 if u < p
	}
}
