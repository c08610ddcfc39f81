package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Interruptible returns a context cancelled by the first Ctrl-C
// (os.Interrupt) or SIGTERM, which lets a training under way (Compare,
// RunPlan, gan.Trainer.Run) finish its step and write its checkpoint,
// and says so on log; a second signal kills the program at once. Call
// stop when done: it releases the signals quietly.
func Interruptible(log io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{}) // closed before cancel: the watcher returns quietly
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			select {
			case <-done: // cancelled by stop: no signal came
				return
			default:
			}
			cancel() // restores the default: a second Ctrl-C kills at once
			fmt.Fprintln(log, "\ninterrupted: finishing the step and writing the checkpoint (Ctrl-C again to abort)")
		}
	}()
	return ctx, func() { close(done); cancel() }
}
