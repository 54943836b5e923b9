// Package core holds what every part of weft shares: simulated time, the
// deterministic event engine, the event stream that detectors observe, the
// trace file codec, and named random-number streams.
//
// core is a leaf: it imports nothing else from weft.
package core
