//go:build tools

package kruisepeer

// The packages of kruise's e2e suite (test/e2e and the spec packages its
// test file imports): imported here so that `go mod tidy` records every
// module `go test -c github.com/openkruise/kruise/test/e2e` needs.
import (
	_ "github.com/onsi/ginkgo/v2"
	_ "github.com/onsi/gomega"
	_ "github.com/openkruise/kruise/test/e2e"
	_ "github.com/openkruise/kruise/test/e2e/apps/v1alpha1"
	_ "github.com/openkruise/kruise/test/e2e/apps/v1beta1"
	_ "github.com/openkruise/kruise/test/e2e/framework/common"
	_ "github.com/openkruise/kruise/test/e2e/policy/v1alpha1"
)
