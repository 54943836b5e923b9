// Package layout holds no code: its test keeps the import rules of weft's
// package layout true (docs/ARCHITECTURE.md): the leaves import no other
// part of weft, the hardware never imports a detector, a detector imports
// only core, isa and other detectors, and the pipeline, experiments and
// command line sit above the simulator in that order.
package layout
