package experiment_test

import (
	"errors"
	"testing"

	"github.com/positgan/positgan/experiment"
)

// SelectShard takes the shard given, else the environment's, else all
// runs; a count that is negative, disagrees, or stands alone is refused.
func TestSelectShard(t *testing.T) {
	none := func(string) string { return "" }
	k8s := func(k string) string {
		if k == experiment.EnvKubernetesIndex {
			return "2"
		}
		return ""
	}
	for _, c := range []struct {
		shard string
		count int
		env   func(string) string
		want  experiment.Shard
		err   string // "count", "shard" or ""
	}{
		{"", 0, none, experiment.Shard{}, ""},
		{"1/4", 0, none, experiment.Shard{Index: 1, Count: 4}, ""},
		{"1/4", 4, k8s, experiment.Shard{Index: 1, Count: 4}, ""},
		{"", 3, k8s, experiment.Shard{Index: 2, Count: 3}, ""},
		{"", -1, none, experiment.Shard{}, "count"},
		{"1/4", 3, none, experiment.Shard{}, "count"},
		{"", 3, none, experiment.Shard{}, "count"},
		{"4/4", 0, none, experiment.Shard{}, "shard"},
		{"", 2, k8s, experiment.Shard{}, "shard"},
	} {
		sh, err := experiment.SelectShard(c.shard, c.count, c.env)
		var ce *experiment.ShardCountError
		var se *experiment.ShardError
		switch {
		case c.err == "count" && !errors.As(err, &ce), c.err == "shard" && !errors.As(err, &se):
			t.Errorf("SelectShard(%q, %d): %v, want a %s error", c.shard, c.count, err, c.err)
		case c.err == "" && (err != nil || sh != c.want):
			t.Errorf("SelectShard(%q, %d) = %v, %v; want %v", c.shard, c.count, sh, err, c.want)
		}
		if ce != nil && (ce.Count != c.count || (ce.Shard != "") != (c.shard != "")) {
			t.Errorf("SelectShard(%q, %d): %+v", c.shard, c.count, ce)
		}
	}
}
