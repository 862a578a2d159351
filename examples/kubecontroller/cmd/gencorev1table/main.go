// Command gencorev1table writes the library's table of the core/v1 shapes a
// pod template can hold (podtemplate/corev1_table.go) from k8s.io/api, by
// reflection (package internal/corev1table says what the table holds).
//
//	cd examples/kubecontroller && go run ./cmd/gencorev1table -o ../../podtemplate/corev1_table.go
//
// Without -o the table goes to standard output. TestTableMatchesK8sAPI fails
// when the committed table and k8s.io/api disagree.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/clonecore/cloneset/examples/kubecontroller/internal/corev1table"
)

func main() {
	out := flag.String("o", "", "write the table to this file (default: standard output)")
	flag.Parse()
	src, err := corev1table.Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorev1table:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gencorev1table:", err)
		os.Exit(1)
	}
}
