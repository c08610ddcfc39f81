package experiment

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/positgan/positgan/compute"
)

func TestBuildInfo(t *testing.T) {
	s := BuildInfo()
	for _, want := range []string{"positgan ", runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		"matrix multiply: " + compute.Name() + "\n", "cpu features: "} {
		if !strings.Contains(s, want) {
			t.Errorf("BuildInfo lacks %q:\n%s", want, s)
		}
	}
}

// Without a signal the context lives until stop, which says nothing.
func TestInterruptibleStop(t *testing.T) {
	var log bytes.Buffer
	ctx, stop := Interruptible(&log)
	if ctx.Err() != nil {
		t.Fatal("cancelled before any signal")
	}
	stop()
	<-ctx.Done()
	if log.Len() != 0 {
		t.Errorf("stop logged %q", log.String())
	}
}
