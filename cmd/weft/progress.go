package main

import (
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar on stderr. A nil *progress shows nothing, so
// callers need not check.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a bar counting to total, or nil when off is set or
// stderr is not a terminal.
func newProgress(e env, off bool, total int, desc string) *progress {
	if off || !e.tty || total <= 0 {
		return nil
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// done records that n items are finished. It is safe to call from
// several goroutines in turn (sim.Batch.OnDone serialises its calls).
func (p *progress) done(n int) {
	if p != nil {
		_ = p.bar.Set(n) // a failed write to the terminal only loses the bar
	}
}

// finish removes the bar from the terminal.
func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}
