// Package analysis is weft's detection pipeline, the one the command line
// and the experiments share: a Suite of registry detectors configured from
// a run's config ([falcon], [conseq]) and checked against the machine and
// the program; the options that attach fresh detectors to every run of a
// batch; a Summary that merges each detector's findings over the batch
// and feeds the detectors that learn across runs; a Training that learns
// from one batch's passing runs and checks the runs of another (AVIO's
// invariants, PSet's sets); the replay of a trace file into detectors;
// the Runner that re-runs a program for the detectors that force
// schedules (ConSeq's tester, inference's replay); and Report, the
// findings of a batch with its text and JSON writers.
//
// It imports sim and detectors: the detectors themselves import neither.
package analysis
