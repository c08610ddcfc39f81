package gan

// SetWeightCache turns the layers' caches of rounded weights of t on or
// off (nn.CacheWeights), from now on and after rebuilds, so that tests can
// compare the bits with and without.
func SetWeightCache(t *Trainer, on bool) {
	t.noWeightCache = !on
	t.cacheWeights()
}
