package serverconformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/clonecore/cloneset/internal/cisummary"
)

const scenariosDir = "../../../testdata/scenarios"

// TestGoldenRequestsOnKubeAPIServer sends the requests of every golden
// scenario of testdata/scenarios to kube-apiserver: each request must be
// accepted, or refused only because its precondition no longer holds (a
// 409 Conflict, or the failed test operation of a JSON patch). It prints
// the counts.
func TestGoldenRequestsOnKubeAPIServer(t *testing.T) {
	var files []string
	err := filepath.WalkDir(scenariosDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios under %s (%v)", scenariosDir, err)
	}
	sort.Strings(files)
	s := testServer(t)
	var accepted, sent int
	var refusedWorlds, libraryRefuses, preconditionOnly []string
	for i, f := range files {
		rel, _ := filepath.Rel(scenariosDir, f)
		name := strings.TrimSuffix(filepath.ToSlash(rel), ".yaml")
		t.Run(name, func(t *testing.T) {
			n, refused, loadErr := sendScenario(t, s, f, fmt.Sprintf("golden-%03d", i))
			sent += n
			switch {
			case t.Failed():
			case errors.Is(loadErr, errLibraryRefuses):
				libraryRefuses = append(libraryRefuses, name)
				t.Logf("no requests: %v", loadErr)
			case loadErr != nil:
				refusedWorlds = append(refusedWorlds, name)
				t.Logf("kube-apiserver refuses to hold the world itself (no request sent): %v", loadErr)
			case len(refused) == 0:
				accepted++
			default:
				preconditionOnly = append(preconditionOnly, name)
				t.Logf("refused only on preconditions:%s", describe(refused))
			}
		})
	}
	line := fmt.Sprintf("golden scenarios on kube-apiserver %s: %d/%d accepted, %d refused only on a precondition, %d the library refuses %v, %d the server refuses to hold %v; %d requests sent",
		s.version, accepted, len(files), len(preconditionOnly), len(libraryRefuses), libraryRefuses, len(refusedWorlds), refusedWorlds, sent)
	cisummary.Print(t, line)
	// The known exceptions, by name: any other scenario leaving the
	// accepted ones is a difference to look at.
	for _, want := range []struct {
		what      string
		got, want []string
	}{
		{"refused only on a precondition (the documented upstream collision)", preconditionOnly, []string{"pvc-reuse/terminating-pod-reuse-collision"}},
		{"the library refuses", libraryRefuses, nil},
		{"the server refuses to hold (a pod-deletion-cost of \"+10\")", refusedWorlds, []string{"deletion-cost/range-and-invalid"}},
	} {
		if !slices.Equal(want.got, want.want) {
			t.Errorf("%s: %v, want %v", want.what, want.got, want.want)
		}
	}
}

// sendScenario loads a scenario and sends the requests of each of its
// CloneSets; it fails the test on a refusal other than a precondition's and
// returns the number of requests sent and the precondition refusals. A world
// the server declares invalid (a pod-deletion-cost annotation that is no
// 32-bit integer, say: a world no cluster can hold) is not sent: its error
// is returned.
func sendScenario(t *testing.T, s *server, file, prefix string) (int, []error, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := s.repairedWorld(t, raw)
	if err != nil {
		return 0, nil, err
	}
	l, err := load(ctx, s.client, sharedCP.CreateNamespace, w, prefix)
	defer l.unload(context.Background(), s.client)
	if apierrors.IsInvalid(err) {
		return 0, nil, err
	}
	if err != nil {
		t.Fatalf("loading it into kube-apiserver: %v", err)
	}
	sent := 0
	var refusedOnPrecondition []error
	for _, cs := range w.cloneSets() {
		reqs := s.plan(t, w, l, l.serverNamespace(cs.namespace)+"/"+cs.name)
		sent += len(reqs)
		for _, err := range l.send(ctx, s.client, nil, w, reqs) {
			if isPrecondition(err) {
				refusedOnPrecondition = append(refusedOnPrecondition, err)
				continue
			}
			t.Errorf("kube-apiserver refused a request: %v", err)
		}
	}
	return sent, refusedOnPrecondition, nil
}

// isPrecondition reports whether an error is a failed precondition: a
// conflict (uid or resourceVersion), a failed JSON patch test operation, or
// a create whose name is taken (a create's own precondition: the name is
// free; a documented upstream quirk makes a pod's replacement collide with
// the terminating pod).
func isPrecondition(err error) bool {
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return false
	}
	return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) || strings.Contains(st.Status().Message, "test operation")
}

// cloneSetRef names a CloneSet of a world.
type cloneSetRef struct{ namespace, name string }

// cloneSets lists the world's CloneSets.
func (w *world) cloneSets() []cloneSetRef {
	var out []cloneSetRef
	for _, d := range w.docs {
		if kindOf(d) == "CloneSet" {
			ns := metaString(d, "namespace")
			if ns == "" {
				ns = "default"
			}
			out = append(out, cloneSetRef{ns, metaString(d, "name")})
		}
	}
	return out
}
