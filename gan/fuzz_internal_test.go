package gan

import (
	"bytes"
	"testing"

	"github.com/positgan/positgan/ckpt"
)

// FuzzReadState: any training-state JSON in a checkpoint gives a state or
// an error, never a panic, and a state it accepts has counters a run could
// have written (issue 29 item 9).
func FuzzReadState(f *testing.F) {
	f.Add(`{"model":{"arch":"cgan"},"batch":4,"seed":1,"lr":0.0002,"beta1":0.5,"beta2":0.999,"eps":1e-8,"step":3,"adam_t":{"D":3,"G":3},"loss_scalers":{"D":{"scale":1},"G":{"scale":1}},"loaders":[],"rng":"AAAA"}`)
	f.Add(`{"batch":4,"step":-5,"adam_t_d":4611686018427387904,"loss_scaler_d":{"scale":1e308}}`)
	f.Add(`{"batch":0}`)
	f.Fuzz(func(t *testing.T, js string) {
		c := &ckpt.Checkpoint{Meta: map[string]string{MetaState: js}}
		s, err := ReadState(c)
		if err != nil {
			return
		}
		if s.Step < 0 || s.Step > maxStep {
			t.Fatalf("accepted step %d", s.Step)
		}
	})
}

// FuzzDecodeLog: any log.csv gives rows or an error, never a panic.
func FuzzDecodeLog(f *testing.F) {
	f.Add([]byte("step,epoch,d_loss,g_loss,loss_scale_d,skipped_d,step_seconds,elapsed_seconds\n1,0,1.2,0.9,1024,0,0.01,0.01\n"))
	f.Add([]byte("step,epoch,step_seconds,elapsed_seconds,status\n-5,0,NaN,1e309,ok\n"))
	f.Add([]byte("step\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := decodeLog(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(rows) > 0 {
			if _, err := lossPlot(rows[:min(len(rows), 3)], 100, 100); err != nil {
				return // a plotting error is an error, not a panic
			}
		}
	})
}
