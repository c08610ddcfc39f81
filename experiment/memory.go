package experiment

import (
	"errors"
	"strconv"
	"strings"
)

// ParseMemory reads a memory size as a shard requests it
// (Resources.MemoryMiB): a whole number of mebibytes with the suffix M or
// Mi, or of gibibytes with G or Gi, e.g. 4G or 512M.
func ParseMemory(s string) (mib int, err error) {
	num, mul := s, 0
	for _, u := range []struct {
		suffix string
		mib    int
	}{{"Gi", 1024}, {"Mi", 1}, {"G", 1024}, {"M", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			num, mul = strings.TrimSuffix(s, u.suffix), u.mib
			break
		}
	}
	n, err := strconv.Atoi(num)
	if mul == 0 || err != nil || n <= 0 || n > 1<<30/mul {
		return 0, errors.New("want a positive whole number with the unit M or G, e.g. 4G")
	}
	return n * mul, nil
}
