// Package bugaboo finds concurrency bugs with context-aware communication
// graphs, after Bugaboo (Lucia and Ceze, "Finding Concurrency Bugs with
// Context-Aware Communication Graphs", MICRO 2009).
//
// A communication graph has a node per static memory instruction paired
// with its communication context, the last few communication events
// (LcRd, LcWr, RmRd, RmWr) its thread saw (context.go; the encoding the
// hardware model shares), and an edge where one instruction consumed
// (RAW) or overwrote (WAW) data another thread's instruction produced.
// The package has:
//
//   - the graph toolkit: Node, Edge, Graph, Union, Difference,
//     Convergence, Imprecision;
//   - SW, BB-SW: the software Bugaboo building a run's graph from the
//     event stream's data accesses through a last-writer table;
//   - HW, BB-HW's software layer: the run's graph from the communication
//     table's drained entries (CTDrain events);
//   - the ranking of code points over many runs' graphs (Ranker: the
//     unlabeled, labeled and deployment methods, with both readings of the
//     paper's formula), the inspection metric (Inspections), and Learner
//     for the runs of a batch.
//
// Like every detector, it sees only events and the program's instructions,
// code points and functions, never a kernel's name, class or @bug marks.
package bugaboo
