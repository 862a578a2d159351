// Package kruisepeer is the root of the peer module: the one module of the
// project that requires github.com/openkruise/kruise (v1.9.0 exactly), so
// that the project's own modules never depend on it. The module builds two
// things:
//
//   - kruise's own e2e suite, whose CloneSet specs the project runs against
//     its controller (scripts/kruise-e2e.sh; docs/kruise-e2e.md):
//
//     GONOSUMDB=github.com/openkruise GOFLAGS=-mod=mod go test -c -o kruise-e2e.test github.com/openkruise/kruise/test/e2e
//
//   - cmd/kruise-cloneset-controller, kruise's CloneSet controller started
//     alone with kruise's defaults, the peer the project's controller is
//     measured against.
//
// The package itself holds no code: the file suite.go (build tag tools)
// imports the suite's packages so that go.mod and go.sum name every module
// the suite's build needs.
package kruisepeer
