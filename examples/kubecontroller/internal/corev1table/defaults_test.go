package corev1table

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	k8sv1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"pgregory.net/rapid"

	"github.com/clonecore/cloneset/podtemplate"
)

// The drift guard of podtemplate.Default and podtemplate.DefaultClaimTemplate:
// on generated templates and claim templates, the library gives what
// Kubernetes' own defaulting functions (k8s.io/kubernetes as
// examples/kubecontroller/tools/go.mod pins it) give when composed as
// kruise v1.9.0's CloneSet mutating webhook composes them (kruise's
// apis/apps/defaults: SetDefaultPodSpec, and SetDefaultsCloneSet's loop over
// the claim templates), through the typed round trip. A Kubernetes release
// that changes one of those functions fails these tests.
//
// kruise 07169cfac (the records' commit) was built against Kubernetes 1.32
// (kruise v1.9.0's go.mod: k8s.io/kubernetes v1.32.10); these functions are
// 1.37's. Where the two differ, the library follows 1.32, the records' side,
// and kruiseDefaultPodSpec undoes exactly what 1.37 adds (see the two
// exceptions there).

// kruiseDefaultPodSpec is kruise's SetDefaultPodSpec at its feature gates'
// defaults, composed from Kubernetes' defaulting functions: the pod spec's,
// the volumes' (the sources kruise defaults), each init container's and
// container's (a container's pull policy Always first, for in-place
// updates), what every container kind gets (port protocol TCP, env field
// references, resource lists, probes and their httpGet, the hooks' httpGet),
// the overhead. kruise's DefaultHostNetworkHostPortsInPodTemplates gate is
// off by default, so a host-network pod's ports get no host ports.
func kruiseDefaultPodSpec(spec *corev1.PodSpec) {
	// Exception 1: SetDefaults_PodSpec of 1.37 keeps serviceAccount (the
	// deprecated alias) and serviceAccountName in sync; 1.32's did not (the
	// sync was then part of the internal conversion, which kruise never
	// runs). Evidence: testdata/conformance-admission, 39 worlds with a
	// serviceAccountName and not one defaulted with a serviceAccount.
	serviceAccount, serviceAccountName := spec.DeprecatedServiceAccount, spec.ServiceAccountName
	k8sv1.SetDefaults_PodSpec(spec)
	spec.DeprecatedServiceAccount, spec.ServiceAccountName = serviceAccount, serviceAccountName

	for i := range spec.Volumes {
		kruiseDefaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		k8sv1.SetDefaults_Container(&spec.InitContainers[i])
		kruiseDefaultAnyContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.ImagePullPolicy == "" {
			c.ImagePullPolicy = corev1.PullAlways
		}
		k8sv1.SetDefaults_Container(c)
		kruiseDefaultAnyContainer(c)
	}
	for i := range spec.EphemeralContainers {
		// The same fields: kruise defaults them one by one, never calling
		// SetDefaults_Container or SetDefaults_EphemeralContainer.
		kruiseDefaultAnyContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	k8sv1.SetDefaults_ResourceList(&spec.Overhead)
}

// kruiseDefaultVolume is kruise's SetDefaultPodVolumes for one volume.
func kruiseDefaultVolume(v *corev1.Volume) {
	// Exception 2: SetDefaults_Volume sets an image volume's pull policy
	// when the ImageVolume gate is on: on (locked) in 1.37, alpha and off in
	// 1.32 (kube_features.go: default false before 1.35). The records hold
	// no image volume; the library follows 1.32.
	var pullPolicy corev1.PullPolicy
	if v.Image != nil {
		pullPolicy = v.Image.PullPolicy
	}
	k8sv1.SetDefaults_Volume(v)
	if v.Image != nil {
		v.Image.PullPolicy = pullPolicy
	}
	if v.HostPath != nil {
		k8sv1.SetDefaults_HostPathVolumeSource(v.HostPath)
	}
	if v.Secret != nil {
		k8sv1.SetDefaults_SecretVolumeSource(v.Secret)
	}
	if v.ConfigMap != nil {
		k8sv1.SetDefaults_ConfigMapVolumeSource(v.ConfigMap)
	}
	if v.DownwardAPI != nil {
		k8sv1.SetDefaults_DownwardAPIVolumeSource(v.DownwardAPI)
		defaultDownwardItems(v.DownwardAPI.Items)
	}
	if v.Projected != nil {
		k8sv1.SetDefaults_ProjectedVolumeSource(v.Projected)
		for _, s := range v.Projected.Sources {
			if s.DownwardAPI != nil {
				defaultDownwardItems(s.DownwardAPI.Items)
			}
			if s.ServiceAccountToken != nil {
				k8sv1.SetDefaults_ServiceAccountTokenProjection(s.ServiceAccountToken)
			}
		}
	}
}

func defaultDownwardItems(items []corev1.DownwardAPIVolumeFile) {
	for _, item := range items {
		if item.FieldRef != nil {
			k8sv1.SetDefaults_ObjectFieldSelector(item.FieldRef)
		}
	}
}

// kruiseDefaultAnyContainer is what kruise defaults in a container of every
// kind.
func kruiseDefaultAnyContainer(c *corev1.Container) {
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			k8sv1.SetDefaults_ObjectFieldSelector(e.ValueFrom.FieldRef)
		}
	}
	k8sv1.SetDefaults_ResourceList(&c.Resources.Limits)
	k8sv1.SetDefaults_ResourceList(&c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil {
			k8sv1.SetDefaults_Probe(p)
			if p.HTTPGet != nil {
				k8sv1.SetDefaults_HTTPGetAction(p.HTTPGet)
			}
		}
	}
	if c.Lifecycle != nil {
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil && h.HTTPGet != nil {
				k8sv1.SetDefaults_HTTPGetAction(h.HTTPGet)
			}
		}
	}
}

// kruiseDefaultClaim is what kruise's SetDefaultsCloneSet does to one volume
// claim template: SetDefaults_PersistentVolumeClaim (not the spec's
// defaulting: no volumeMode) and its three resource lists.
func kruiseDefaultClaim(c *corev1.PersistentVolumeClaim) {
	k8sv1.SetDefaults_PersistentVolumeClaim(c)
	k8sv1.SetDefaults_ResourceList(&c.Spec.Resources.Limits)
	k8sv1.SetDefaults_ResourceList(&c.Spec.Resources.Requests)
	k8sv1.SetDefaults_ResourceList(&c.Status.Capacity)
}

// referenceDefaults is the typed round trip of doc (a JSON document of Go
// type T) with defaults applied in between, as generic values (numbers as
// their text, json.Number), and creationTimestamp null where upstream
// writes it (the table's override).
func referenceDefaults[T any](doc []byte, root reflect.Type, apply func(*T)) (map[string]any, error) {
	var typed T
	if err := json.Unmarshal(doc, &typed); err != nil {
		return nil, err
	}
	apply(&typed)
	enc, err := json.Marshal(&typed)
	if err != nil {
		return nil, err
	}
	tree, err := decodeNumbers(enc)
	if err != nil {
		return nil, err
	}
	nullCreationTimestamps(tree, root)
	return tree, nil
}

// decodeNumbers decodes a JSON object with numbers as json.Number (their
// text, compared exactly).
func decodeNumbers(doc []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var tree map[string]any
	err := dec.Decode(&tree)
	return tree, err
}

// referenceTemplate is the webhook's template: the typed round trip with
// kruise's defaults.
func referenceTemplate(doc []byte) (map[string]any, error) {
	return referenceDefaults(doc, Root, func(t *corev1.PodTemplateSpec) { kruiseDefaultPodSpec(&t.Spec) })
}

// referenceClaim is the webhook's claim template.
func referenceClaim(doc []byte) (map[string]any, error) {
	return referenceDefaults(doc, ClaimRoot, kruiseDefaultClaim)
}

// libraryDefaults runs a library function on doc read as the library reads
// JSON (podtemplate.DecodeJSON), as generic values (numbers as their text,
// json.Number: integers compared exactly).
func libraryDefaults(doc []byte, f func(map[string]any) (map[string]any, error)) (map[string]any, error) {
	tree, err := podtemplate.DecodeJSON(doc)
	if err != nil {
		return nil, err
	}
	out, err := f(tree)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return decodeNumbers(b)
}

// compareDefaults fails when the library and the reference disagree on doc
// (an error on one side only, or different trees, compared exactly: every
// member, null and empty ones too) and returns both trees.
func compareDefaults(t interface{ Fatalf(string, ...any) }, kind string, doc []byte,
	reference func([]byte) (map[string]any, error), library func(map[string]any) (map[string]any, error)) (want map[string]any, ok bool) {
	want, wantErr := reference(doc)
	got, gotErr := libraryDefaults(doc, library)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("%s %s\nKubernetes: error %v\nlibrary:    error %v", kind, doc, wantErr, gotErr)
	case wantErr == nil && !reflect.DeepEqual(got, want):
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		t.Fatalf("%s %s\nKubernetes: %s\nlibrary:    %s\nfirst difference: %s", kind, doc, w, g, firstDifference(want, got, ""))
	}
	return want, wantErr == nil
}

// firstDifference names the first path (in key order) where two trees
// differ.
func firstDifference(a, b any, path string) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range am {
				if !yield(k) {
					return
				}
			}
			for k := range bm {
				if _, dup := am[k]; !dup && !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			if d := firstDifference(am[k], bm[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			if d := firstDifference(al[i], bl[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	return fmt.Sprintf("%s: Kubernetes %s, library %s", path, aj, bj)
}

// changedPaths records, with list indexes as [] and the keys of resource
// lists as [*], the paths where defaulting changed a typed tree (before)
// into after; for a pull policy, also the value written.
func changedPaths(before, after any, path string, out map[string]bool) {
	switch a := after.(type) {
	case map[string]any:
		b, isMap := before.(map[string]any)
		if !isMap {
			out[path] = true // a whole object written where there was none
			return
		}
		resourceList := strings.HasSuffix(path, ".limits") || strings.HasSuffix(path, ".requests") ||
			strings.HasSuffix(path, ".overhead") || strings.HasSuffix(path, ".capacity")
		for k, v := range a {
			seg := "." + k
			if resourceList {
				seg = "[*]"
			}
			changedPaths(b[k], v, path+seg, out) // an absent member is nil, as a null one
		}
	case []any:
		b, _ := before.([]any)
		for i, v := range a {
			var was any
			if i < len(b) {
				was = b[i]
			}
			changedPaths(was, v, path+"[]", out)
		}
	default:
		if !reflect.DeepEqual(before, after) {
			out[path] = true
			if strings.HasSuffix(path, ".imagePullPolicy") {
				out[fmt.Sprintf("%s=%v", path, after)] = true
			}
		}
	}
}

// templateRules are the paths the defaults of a template write; the
// generated templates must make each of them fire.
var templateRules = func() []string {
	rules := []string{
		".spec.dnsPolicy", ".spec.restartPolicy", ".spec.securityContext",
		".spec.terminationGracePeriodSeconds", ".spec.schedulerName", ".spec.overhead[*]",
		".spec.volumes[].emptyDir", ".spec.volumes[].hostPath.type",
		".spec.volumes[].secret.defaultMode", ".spec.volumes[].configMap.defaultMode",
		".spec.volumes[].downwardAPI.defaultMode", ".spec.volumes[].downwardAPI.items[].fieldRef.apiVersion",
		".spec.volumes[].projected.defaultMode",
		".spec.volumes[].projected.sources[].downwardAPI.items[].fieldRef.apiVersion",
		".spec.volumes[].projected.sources[].serviceAccountToken.expirationSeconds",
		".spec.containers[].imagePullPolicy=Always",
		".spec.initContainers[].imagePullPolicy=Always", ".spec.initContainers[].imagePullPolicy=IfNotPresent",
	}
	for _, kind := range []string{"initContainers", "containers"} {
		rules = append(rules, ".spec."+kind+"[].terminationMessagePath", ".spec."+kind+"[].terminationMessagePolicy")
	}
	for _, kind := range []string{"initContainers", "containers", "ephemeralContainers"} {
		c := ".spec." + kind + "[]"
		rules = append(rules, c+".ports[].protocol", c+".env[].valueFrom.fieldRef.apiVersion",
			c+".resources.limits[*]", c+".resources.requests[*]",
			c+".lifecycle.postStart.httpGet.path", c+".lifecycle.postStart.httpGet.scheme",
			c+".lifecycle.preStop.httpGet.path", c+".lifecycle.preStop.httpGet.scheme")
		for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
			for _, f := range []string{"timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold", "httpGet.path", "httpGet.scheme"} {
				rules = append(rules, c+"."+probe+"."+f)
			}
		}
	}
	return rules
}()

// claimRules are the paths the defaults of a claim template write.
var claimRules = []string{".status.phase", ".spec.resources.limits[*]", ".spec.resources.requests[*]", ".status.capacity[*]"}

// requireCoverage fails when a rule never fired.
func requireCoverage(t *testing.T, rules []string, fired map[string]bool) {
	t.Helper()
	var missing []string
	for _, r := range rules {
		if !fired[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the generated documents never made these defaults fire (the comparison did not check them): %v", missing)
	}
}

// TestDefaultMatchesKubernetes: for generated pod templates (built to make
// every default fire, among members of every kind), podtemplate.Default is
// the typed round trip with kruise's defaulting composed from Kubernetes'
// functions; each default fired at least once.
func TestDefaultMatchesKubernetes(t *testing.T) {
	fired := map[string]bool{}
	rapid.Check(t, func(t *rapid.T) {
		doc, err := json.Marshal((&defaultsGen{t: t}).template())
		if err != nil {
			t.Fatal(err)
		}
		want, ok := compareDefaults(t, "template", doc, referenceTemplate, podtemplate.Default)
		if !ok {
			return
		}
		typed, err := libraryDefaults(doc, podtemplate.Encode)
		if err != nil {
			t.Fatal(err)
		}
		changedPaths(typed, want, "", fired)
	})
	requireCoverage(t, templateRules, fired)
}

// TestDefaultMatchesKubernetesAnyShape: the same comparison on templates
// of any shape (TestRevisionDataMatchesTypedRoundTrip's generator: every
// member of the types, unknown members, nulls, values the types refuse,
// which both sides must refuse).
func TestDefaultMatchesKubernetesAnyShape(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, bad: rapid.IntRange(0, 3).Draw(t, "bad") == 0, budget: 150}
		doc, err := json.Marshal(g.template())
		if err != nil {
			t.Fatal(err)
		}
		compareDefaults(t, "template", doc, referenceTemplate, podtemplate.Default)
	})
}

// TestDefaultClaimTemplateMatchesKubernetes: the same for claim templates,
// focused ones (every default fires) and ones of any shape.
func TestDefaultClaimTemplateMatchesKubernetes(t *testing.T) {
	fired := map[string]bool{}
	rapid.Check(t, func(t *rapid.T) {
		doc, err := json.Marshal((&defaultsGen{t: t}).claim())
		if err != nil {
			t.Fatal(err)
		}
		want, ok := compareDefaults(t, "claim template", doc, referenceClaim, podtemplate.DefaultClaimTemplate)
		if !ok {
			return
		}
		typed, err := libraryDefaults(doc, podtemplate.EncodeClaimTemplate)
		if err != nil {
			t.Fatal(err)
		}
		changedPaths(typed, want, "", fired)
	})
	requireCoverage(t, claimRules, fired)
	rapid.Check(t, func(t *rapid.T) {
		g := &templateGen{t: t, bad: rapid.IntRange(0, 3).Draw(t, "bad") == 0, budget: 100}
		doc, err := json.Marshal(g.object(ClaimRoot, 0, "claim"))
		if err != nil {
			t.Fatal(err)
		}
		compareDefaults(t, "claim template", doc, referenceClaim, podtemplate.DefaultClaimTemplate)
	})
}

// roundingDoc is a template whose only quantity is s, in a container's
// limits (where the defaults round it up to millis).
func roundingDoc(s string) []byte {
	doc, _ := json.Marshal(map[string]any{"spec": map[string]any{"containers": []any{
		map[string]any{"name": "c", "resources": map[string]any{"limits": map[string]any{"cpu": s}}},
	}}})
	return doc
}

// TestResourceRoundingMatchesKubernetes: SetDefaults_ResourceList's
// rounding up to millis, through Default, on the quantity grid of
// TestCanonicalQuantityGrid and on generated quantities.
func TestResourceRoundingMatchesKubernetes(t *testing.T) {
	for _, s := range []string{"0.0001", "1.0001", "-0.0001", "1.5Ki", "1023.9999999Ki", "1.000001", "1.100u",
		"100u", "0.5m", "1n", "1e-7", "999.9999", "9.9999999999999999999", "123456789.123456789", "0.0000000001Ki"} {
		compareDefaults(t, "template", roundingDoc(s), referenceTemplate, podtemplate.Default)
	}
	for _, sign := range []string{"", "-"} {
		for _, whole := range []string{"", "1", "1023", "1024", "999999", "1234567890123456789"} {
			for _, frac := range []string{"none", "0", "0005", "001", "0010", "000001", "9999999", "0000000001", "1234567890123"} {
				for _, suf := range quantitySuffixes {
					s := sign + whole
					if frac != "none" {
						s += "." + frac
					}
					compareDefaults(t, "template", roundingDoc(s+suf), referenceTemplate, podtemplate.Default)
				}
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		compareDefaults(t, "template", roundingDoc(quantityText().Draw(t, "quantity")), referenceTemplate, podtemplate.Default)
	})
}

// imageSamples are image references around every rule of the reference
// grammar and its normalization.
var imageSamples = []string{
	"", "nginx", "nginx:latest", "nginx:1.25", "nginx:LATEST", "nginx:latest-1", "Nginx", "NGINX:latest",
	"nginx@sha256:" + strings.Repeat("a", 64), "nginx:latest@sha256:" + strings.Repeat("0", 64),
	"nginx:1.2@sha256:" + strings.Repeat("f", 64), "nginx:latest@sha256:" + strings.Repeat("A", 64),
	"nginx:latest@sha256:abc", "nginx:latest@sha384:" + strings.Repeat("b", 96), "nginx:latest@sha512:" + strings.Repeat("c", 128),
	"nginx:latest@md5:" + strings.Repeat("d", 32), "nginx@md5:" + strings.Repeat("d", 32), "nginx:latest@sha256:" + strings.Repeat("e", 65),
	strings.Repeat("a", 64), strings.Repeat("a", 63), "registry.example.com/team/api", "registry.example.com:5000/team/api:latest",
	"registry.example.com/team/api:v2.3.1", "localhost/foo:latest", "localhost:5000/foo", "index.docker.io/foo", "docker.io/library/nginx",
	"[::1]:5000/foo:latest", "[::1]/foo", "Registry.Example.com/x", "Upper/x:latest", "foo/Bar:latest", "foo/bar:latest/baz",
	":latest", "foo:", "foo@", "foo bar", "ünï", "foo:tag:latest", "-foo", "foo--bar", "foo__bar", "foo___bar", "foo._bar",
	"foo/" + strings.Repeat("a", 251), "foo/" + strings.Repeat("a", 252), "example.com/" + strings.Repeat("b", 255) + ":latest",
	"example.com/" + strings.Repeat("b", 256), "foo:" + strings.Repeat("t", 128), "foo:" + strings.Repeat("t", 129),
	"a-.b/c", "a.b-/c", "a..b/c", "a:b/c:latest", "a:/c", "UPPER:5000/x", "foo/bar@sha256:" + strings.Repeat("1", 64) + "x",
}

// imageText generates image references from the grammar's alphabet.
var imageText = rapid.StringMatching(`[a-zA-Z0-9:/.@\-_\[\]]{0,16}`)

// pullPolicyDoc is a template with an init container of this image (whose
// pull policy Kubernetes derives from the image's tag).
func pullPolicyDoc(image string) []byte {
	doc, _ := json.Marshal(map[string]any{"spec": map[string]any{"initContainers": []any{
		map[string]any{"name": "init", "image": image},
	}}})
	return doc
}

// TestInitContainerPullPolicyMatchesKubernetes: the pull policy
// SetDefaults_Container derives from an image reference, on samples and on
// generated references.
func TestInitContainerPullPolicyMatchesKubernetes(t *testing.T) {
	always := 0
	for _, image := range imageSamples {
		want, _ := compareDefaults(t, "template", pullPolicyDoc(image), referenceTemplate, podtemplate.Default)
		spec, _ := want["spec"].(map[string]any)
		inits, _ := spec["initContainers"].([]any)
		if init, _ := inits[0].(map[string]any); init["imagePullPolicy"] == "Always" {
			always++
		}
	}
	if always == 0 || always == len(imageSamples) {
		t.Fatalf("%d of %d samples pull Always: the samples do not tell the policies apart", always, len(imageSamples))
	}
	rapid.Check(t, func(t *rapid.T) {
		compareDefaults(t, "template", pullPolicyDoc(imageText.Draw(t, "image")), referenceTemplate, podtemplate.Default)
	})
}

// TestReferenceExceptionsAreReal: the two exceptions kruiseDefaultPodSpec
// makes are still differences of Kubernetes' functions; when one is gone
// (a release no longer syncs serviceAccount, or defaults image volumes
// no more), its exception is to be dropped.
func TestReferenceExceptionsAreReal(t *testing.T) {
	spec := corev1.PodSpec{ServiceAccountName: "sa", Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "img"}}}}}
	k8sv1.SetDefaults_PodSpec(&spec)
	if spec.DeprecatedServiceAccount != "sa" {
		t.Error("SetDefaults_PodSpec no longer copies serviceAccountName to serviceAccount: drop exception 1 of kruiseDefaultPodSpec")
	}
	k8sv1.SetDefaults_Volume(&spec.Volumes[0])
	if spec.Volumes[0].Image.PullPolicy == "" {
		t.Error("SetDefaults_Volume no longer defaults an image volume's pull policy: drop exception 2 of kruiseDefaultVolume")
	}
}
