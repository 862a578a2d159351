package kruisee2e

import (
	"context"
	"fmt"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/kruisecrd"
	"github.com/clonecore/cloneset/examples/kubecontroller/internal/peerbuild"
	"github.com/clonecore/cloneset/internal/cisummary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/yaml"
)

// The environment the test reads (scripts/kruise-e2e.sh sets it).
const (
	// EnvSuite is the path of kruise's compiled e2e suite (go test -c
	// github.com/openkruise/kruise/test/e2e in the peer module). Without
	// it the test is skipped.
	EnvSuite = "CLONESET_KRUISE_E2E_SUITE"
	// EnvGinkgo is the path of the ginkgo CLI (the peer module's tool),
	// which runs the suite's specs in parallel processes.
	EnvGinkgo = "CLONESET_KRUISE_E2E_GINKGO"
	// EnvProcs is how many ginkgo processes run specs at once (default 4).
	EnvProcs = "CLONESET_KRUISE_E2E_PROCS"
	// EnvFocus, when set, is a ginkgo focus regular expression that runs
	// only the matching specs (the count is then of fewer than 43).
	EnvFocus = "CLONESET_KRUISE_E2E_FOCUS"
	// EnvReportDir, when set, receives ginkgo's JSON report and the logs
	// of the control plane, the controller and the suite.
	EnvReportDir = "CLONESET_KRUISE_E2E_REPORT_DIR"
	// EnvPeer, when set, is the path of the peer module's
	// kruise-cloneset-controller: the specs then run against kruise's own
	// CloneSet controller (no webhooks) instead of clonesetcontroller, on
	// kruise's CustomResourceDefinitions from EnvKruiseCRDs. It checks the
	// harness and the stand-ins against the real thing.
	EnvPeer = "CLONESET_KRUISE_E2E_PEER"
	// EnvKruiseCRDs is kruise's config/crd/bases directory (the peer
	// module's copy of github.com/openkruise/kruise@v1.9.0).
	EnvKruiseCRDs = "CLONESET_KRUISE_E2E_KRUISE_CRDS"
)

// controllerBinary is the controller built by TestMain.
var controllerBinary string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "cloneset-kruisee2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	controllerBinary = filepath.Join(dir, "clonesetcontroller")
	build := exec.Command("go", "build", "-o", controllerBinary, "../cmd/clonesetcontroller")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "kruisee2e: build the controller: %v\n%s", err, out)
		return 1
	}
	ctrllog.SetLogger(logr.Discard()) // the control plane's clients are controller-runtime's
	return m.Run()
}

// TestKruiseCloneSetSpecs runs kruise's own CloneSet e2e specs against
// clonesetcontroller on the project's control plane and prints
//
//	kruise e2e CloneSet specs (v1.9.0): P passed, F failed, S skipped of 43
//
// and a line per failed spec. A failing spec does not fail the test (the
// docs classify each one); the harness does: a control plane, controller
// or suite that does not run, or a report that does not hold the 43
// specs.
func TestKruiseCloneSetSpecs(t *testing.T) {
	suite, ginkgo := os.Getenv(EnvSuite), os.Getenv(EnvGinkgo)
	if suite == "" || ginkgo == "" {
		suite, ginkgo = buildSuite(t)
	}
	procs := 4
	if v := os.Getenv(EnvProcs); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number", EnvProcs, v)
		}
		procs = n
	}
	reportDir := os.Getenv(EnvReportDir)
	if reportDir == "" {
		reportDir = t.TempDir()
	} else if err := os.MkdirAll(reportDir, 0o755); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	cp := controlplane.StartForTest(t, controlplane.Options{
		Nodes: 4, Zones: 2,
		Stages:       Stages(),
		ImageAliases: ImageAliases,
		LogDir:       filepath.Join(reportDir, "logs"),
	})
	t.Logf("control plane up in %s", time.Since(start).Round(time.Millisecond))
	peer := os.Getenv(EnvPeer)

	ctx, cancel := context.WithCancel(context.Background())
	var actors sync.WaitGroup
	t.Cleanup(func() { cancel(); actors.Wait() })
	report := func(err error) { t.Log(err) }
	actors.Add(1)
	go func() { defer actors.Done(); Provision(ctx, cp.Clientset(), report) }()
	actors.Add(1)
	go func() { defer actors.Done(); StandIns(ctx, cp.Clientset(), ImageAliases, report) }()

	var controller *controlplane.Process
	if peer == "" {
		// The system a user installs (config/: the CRD with its conversion
		// webhook, the webhook configurations, the roles), the binary run
		// as its service account with its webhooks, which kube-apiserver
		// calls over TLS.
		sys, err := installtest.Install(t.Context(), cp, controllerBinary)
		if err != nil {
			t.Fatal(err)
		}
		// OpenKruise's ImagePullJob, which the image pre-download writes
		// (the spec "pre-download for new image" lists them); the binary
		// finds it served when it starts.
		if err := kruisecrd.InstallImagePullJob(t.Context(), cp); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sys.Close() })
		id, err := sys.ServiceAccount(t.Context(), installtest.Namespace, "clonesetcontroller")
		if err != nil {
			t.Fatal(err)
		}
		c, err := sys.StartController("clonesetcontroller", id, "--workers", strconv.Itoa(procs), "--feature-gates", FeatureGates)
		if err != nil {
			t.Fatal(err)
		}
		controller = c.Process
	} else {
		installKruiseDefinitions(t, cp, os.Getenv(EnvKruiseCRDs))
		p, err := cp.StartProcess("kruise-cloneset-controller", peer,
			"--kubeconfig", cp.KubeconfigPath(), "--cloneset-workers", strconv.Itoa(procs), "--kube-api-qps", "-1",
			"--feature-gates", KruiseFeatureGates)
		if err != nil {
			t.Fatal(err)
		}
		controller = p
	}
	t.Cleanup(func() { _ = controller.Stop() })
	waitLog(t, controller, "Starting workers", time.Minute)

	jsonReport := filepath.Join(reportDir, "ginkgo-report.json")
	args := []string{
		"--procs=" + strconv.Itoa(procs),
		"--label-filter=" + LabelFilter,
		"--json-report=" + jsonReport,
		"--no-color",
		"--flake-attempts=" + strconv.Itoa(FlakeAttempts),
		"--timeout=80m",
		"--poll-progress-after=5m",
	}
	if focus := os.Getenv(EnvFocus); focus != "" {
		args = append(args, "--focus="+focus)
	}
	args = append(args, suite, "--", "--provider=local")
	t.Logf("ginkgo %s", strings.Join(args, " "))
	runStart := time.Now()
	runner, err := cp.StartProcess("ginkgo", ginkgo, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = runner.Stop() })
	exit := runner.Wait() // non-zero when a spec failed: the report tells
	t.Logf("suite ran in %s (ginkgo: %v); its log: %s", time.Since(runStart).Round(time.Second), exit, runner.LogPath())

	f, err := os.Open(jsonReport)
	if err != nil {
		t.Fatalf("no ginkgo report (%v); the suite's log ends:\n%s", err, runner.LogTail(60))
	}
	defer f.Close()
	specs, err := ReadReport(f)
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(specs)
	cisummary.Print(t, sum.Line())
	for _, s := range sum.Failures {
		cisummary.Print(t, "kruise e2e failed: "+s.Name)
		t.Logf("%s:\n%s", s.Name, s.Failure)
	}
	for _, s := range sum.Retried {
		cisummary.Print(t, fmt.Sprintf("kruise e2e passed on attempt %d: %s", s.Attempts, s.Name))
		t.Logf("%s, its earlier failures:\n%s", s.Name, strings.Join(s.EarlierFailures, "\n"))
	}
	if os.Getenv(EnvFocus) == "" && len(specs) != WantSpecs {
		t.Errorf("the report holds %d CloneSet specs, want %d", len(specs), WantSpecs)
	}
	if controller.Exited() {
		t.Errorf("the controller exited during the run; its log ends:\n%s", controller.LogTail(40))
	}
}

// installKruiseDefinitions installs kruise's own CloneSet and ImagePullJob
// definitions from dir (kruise's config/crd/bases), for kruise's controller.
func installKruiseDefinitions(t *testing.T, cp *controlplane.ControlPlane, dir string) {
	t.Helper()
	if dir == "" {
		t.Fatalf("%s is set: set %s too", EnvPeer, EnvKruiseCRDs)
	}
	client, err := apiextensionsclient.NewForConfig(cp.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"apps.kruise.io_clonesets.yaml", "apps.kruise.io_imagepulljobs.yaml", "apps.kruise.io_nodeimages.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		var def apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &def); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(t.Context(), &def, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := cp.Clientset().Discovery().ServerResourcesForGroupVersion("apps.kruise.io/v1beta1")
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kruise's definitions are not served: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitLog waits until the process's log has a line containing text.
func waitLog(t *testing.T, p *controlplane.Process, text string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(p.LogPath()); err == nil && strings.Contains(string(data), text) {
			return
		}
		if p.Exited() {
			t.Fatalf("%s exited; its log ends:\n%s", p.Name(), p.LogTail(40))
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s has not logged %q within %s; its log ends:\n%s", p.Name(), text, timeout, p.LogTail(40))
}

// buildSuite builds OpenKruise's e2e suite and the ginkgo CLI in the peer
// module into the test's temporary directory (a relink when the build
// cache is warm; about 17 minutes cold), for a run without EnvSuite and
// EnvGinkgo: the specs always run, never skipped.
func buildSuite(t *testing.T) (suite, ginkgo string) {
	t.Helper()
	dir := t.TempDir()
	suite, ginkgo = filepath.Join(dir, "kruise-e2e.test"), filepath.Join(dir, "ginkgo")
	for _, args := range [][]string{
		{"test", "-c", "-o", suite, "github.com/openkruise/kruise/test/e2e"},
		{"build", "-o", ginkgo, "github.com/onsi/ginkgo/v2/ginkgo"},
	} {
		start := time.Now()
		if _, err := peerbuild.Go(args...); err != nil {
			t.Fatal(err)
		}
		t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Second))
	}
	return suite, ginkgo
}
