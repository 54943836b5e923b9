package main

import "weft/isa"

// cmdAsm is `weft asm FILE.s`.
func cmdAsm(e env, args []string) error {
	fs := newFlagSet("asm", "weft asm FILE.s",
		`Assembles FILE.s and prints its disassembly with, after every
instruction, a comment giving its PC and the line of FILE.s it came from
("# pc 29, line 41"): outcomes and traces name PCs. The output assembles
back to an equal program whose instructions keep the source lines of
FILE.s: a comment of exactly that form at the end of an instruction's line
gives the instruction its source line (so a listing re-assembled, as a
trace's header program is, still names FILE.s's lines); any other
comment is ignored. Assembler errors are printed as "file:line: message",
one a line, and the exit status is 1.`)
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(fs, "asm: want one FILE.s, got %d arguments", len(pos))
	}
	prog, err := assembleFile(pos[0])
	if err != nil {
		return err
	}
	return isa.WriteListing(e.stdout, prog)
}
