package main

import (
	"fmt"
	"io"

	"github.com/clonecore/cloneset/model"
)

// runSimulate runs opts.steps reconciles with a cluster model seeded by opts.seed and, when opts.svg is set, draws them.
func runSimulate(scn *model.Scenario, opts options, stdout, stderr io.Writer) int {
	_, _, _ = scn, opts, stdout
	fmt.Fprintln(stderr, "clonesetplan simulate: not implemented yet")
	return exitUsage
}
