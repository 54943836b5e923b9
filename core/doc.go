// Package core holds what every part of weft shares: simulated time
// (Cycle), the deterministic event engine, the event stream that detectors
// observe (Event, its kinds, the contract of each kind's fields, the named
// accessors of its payload and Event.Op, the one decoding of program
// events into operations), the trace file codec, named random-number
// streams, the waits and park rules of schedule control, named statistics
// groups, the findings detectors report, and Bugaboo's communication
// context, which the hardware and the software detector share.
//
// core is a leaf: it imports nothing else from weft.
package core
