package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts is a command's context made to stop on SIGINT (Ctrl-C) and
// SIGTERM (what batch systems send), remembering which signal came.
type interrupts struct {
	ctx  context.Context
	stop func()
	mu   sync.Mutex
	sig  os.Signal
}

// catchInterrupts returns a context that is cancelled when parent is, or
// on the first SIGINT or SIGTERM. The handler is installed even when the
// process started with SIGINT ignored (a shell's background job), so
// `kill -INT` stops a background batch too. After the first signal the
// default action is restored: a second Ctrl-C kills the process at once.
// Call stop when the work is done.
func catchInterrupts(parent context.Context) *interrupts {
	ctx, cancel := context.WithCancel(parent)
	in := &interrupts{ctx: ctx}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case s := <-ch:
			in.mu.Lock()
			in.sig = s
			in.mu.Unlock()
			signal.Stop(ch)
			cancel()
		case <-quit:
		}
	}()
	in.stop = sync.OnceFunc(func() {
		signal.Stop(ch)
		close(quit)
		wg.Wait()
		cancel()
	})
	return in
}

// status is the exit status of a command stopped by an interrupt: 128 plus
// the signal's number, as shells report it (130 for SIGINT, 143 for
// SIGTERM); 130 when the parent context was cancelled.
func (in *interrupts) status() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if s, ok := in.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// interruptedError is a command stopped early that kept its finished
// work: weft prints its message and exits with its status (130 or 143).
type interruptedError struct {
	msg    string
	status int
}

func (e *interruptedError) Error() string { return e.msg }
