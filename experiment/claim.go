package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/positgan/positgan/internal/runlock"
)

// ErrBusy is wrapped by the *RunError of a run that another process was
// training: several Compare calls (or processes) may share a sweep's
// folder, each training the runs it claims first. Running the sweep again
// once the other has finished completes the table.
var ErrBusy = errors.New("run folder in use by another process")

// claimRun trains and measures run r unless another process holds its
// folder, in which case it returns a nil Result and the busy error. The
// folder is locked for the whole run; temporary files that killed writers
// left in it are removed first, and a result another process recorded
// meanwhile is taken as it is.
func claimRun(ctx context.Context, s *Sweep, m *model, r Run, ms *measurer, log io.Writer) (*Result, error) {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	// Removed temporary files are not news in a sweep's log.
	release, err := ClaimFolders([]string{r.Dir}, io.Discard, nil)
	if err != nil {
		var b *runlock.BusyError
		if errors.As(err, &b) {
			return nil, fmt.Errorf("%w: %s (process %d); run the sweep again when it has finished", ErrBusy, r.Dir, b.PID)
		}
		return nil, err
	}
	defer release()
	if res, ok := readResult(s, r, ms.metric); ok {
		return res, nil
	}
	return runOne(ctx, s, m, r, ms, log)
}
