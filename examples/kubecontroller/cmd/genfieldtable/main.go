// Command genfieldtable writes the library's table of the fields of the
// objects the scenario loader reads (manifest/fields_table.go) from k8s.io/api
// and kruise's source (package internal/fieldtable says what the table holds):
//
//	cd examples/kubecontroller && go run ./cmd/genfieldtable -o ../../manifest/fields_table.go
//
// kruise's source is read from the module cache; fetch it once with
//
//	GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod go mod download github.com/openkruise/kruise@v1.9.0
//
// Without -o the table goes to standard output. TestFieldTableMatchesSources
// fails when the committed table and the sources disagree.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/fieldtable"
)

func main() {
	out := flag.String("o", "", "write the table to this file (default: standard output)")
	kruise := flag.String("kruise", "", "kruise's source directory (default: "+fieldtable.KruiseModule+"@"+fieldtable.KruiseVersion+" in the module cache)")
	flag.Parse()
	dir := *kruise
	if dir == "" {
		var ok bool
		if dir, ok = fieldtable.KruiseDir(); !ok {
			fmt.Fprintf(os.Stderr, "genfieldtable: %s is not in the module cache (%s): fetch it with\n  GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod go mod download %s@%s\n",
				fieldtable.KruiseModule, dir, fieldtable.KruiseModule, fieldtable.KruiseVersion)
			os.Exit(1)
		}
	}
	src, err := fieldtable.Generate(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfieldtable:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genfieldtable:", err)
		os.Exit(1)
	}
}
