package podtemplate

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// defaultedJSON runs Default on a JSON template and writes the result as
// JSON (members sorted).
func defaultedJSON(t *testing.T, f func(map[string]any) (map[string]any, error), in string) string {
	t.Helper()
	out, err := f(tree(t, in))
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// podDefaults is what every template gets: the pod spec's defaults.
const podDefaults = `"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30`

// TestDefaultRules: one rule per case (the example module compares
// generated templates with Kubernetes' own defaulting functions, the
// conformance test with kruise's webhook).
func TestDefaultRules(t *testing.T) {
	const meta = `{"metadata":{"creationTimestamp":null},`
	for _, c := range []struct {
		name, in, want string
	}{
		{"the pod spec's defaults, on the empty template",
			`{}`, meta + `"spec":{"containers":null,` + podDefaults + `}}`},
		{"the pod spec's defaults keep what is set (a zero grace period too)",
			`{"spec":{"containers":[],"dnsPolicy":"Default","restartPolicy":"Never","schedulerName":"s","securityContext":{"runAsUser":1},"terminationGracePeriodSeconds":0}}`,
			meta + `"spec":{"containers":[],"dnsPolicy":"Default","restartPolicy":"Never","schedulerName":"s","securityContext":{"runAsUser":1},"terminationGracePeriodSeconds":0}}`},
		{"null and empty values are defaulted as absent ones",
			`{"spec":{"containers":[],"dnsPolicy":"","restartPolicy":null,"securityContext":null,"terminationGracePeriodSeconds":null}}`,
			meta + `"spec":{"containers":[],` + podDefaults + `}}`},
		{"a container: pull policy Always, termination message path and policy",
			`{"spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}}`,
			meta + `"spec":{"containers":[{"image":"nginx:1.25","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],` + podDefaults + `}}`},
		{"a container keeps its own pull policy and termination message",
			`{"spec":{"containers":[{"name":"c","imagePullPolicy":"Never","terminationMessagePath":"/m","terminationMessagePolicy":"FallbackToLogsOnError"}]}}`,
			meta + `"spec":{"containers":[{"imagePullPolicy":"Never","name":"c","resources":{},"terminationMessagePath":"/m","terminationMessagePolicy":"FallbackToLogsOnError"}],` + podDefaults + `}}`},
		{"an init container: pull policy from the image's tag",
			`{"spec":{"initContainers":[{"name":"a","image":"nginx"},{"name":"b","image":"nginx:1.25"},{"name":"c","image":"nginx:latest"}]}}`,
			meta + `"spec":{"containers":null,` + podDefaults[:len(`"dnsPolicy":"ClusterFirst"`)] + `,"initContainers":[` +
				`{"image":"nginx","imagePullPolicy":"Always","name":"a","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},` +
				`{"image":"nginx:1.25","imagePullPolicy":"IfNotPresent","name":"b","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"},` +
				`{"image":"nginx:latest","imagePullPolicy":"Always","name":"c","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],` +
				podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"an ephemeral container: no pull policy, no termination message",
			`{"spec":{"containers":[],"ephemeralContainers":[{"name":"e","image":"busybox","ports":[{"containerPort":80}]}]}}`,
			meta + `"spec":{"containers":[],"dnsPolicy":"ClusterFirst","ephemeralContainers":[{"image":"busybox","name":"e","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{}}],` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"ports: protocol TCP when none; no host port, even with host network",
			`{"spec":{"hostNetwork":true,"containers":[{"name":"c","imagePullPolicy":"Never","ports":[{"containerPort":80},{"containerPort":53,"protocol":"UDP"}]}]}}`,
			meta + `"spec":{"containers":[{"imagePullPolicy":"Never","name":"c","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":53,"protocol":"UDP"}],"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","hostNetwork":true,` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"env: a field reference gets apiVersion v1; other references nothing",
			`{"spec":{"ephemeralContainers":[{"name":"e","env":[{"name":"A","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"x","apiVersion":"v2"}}},{"name":"C","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}}]}]}}`,
			meta + `"spec":{"containers":null,"dnsPolicy":"ClusterFirst","ephemeralContainers":[{"env":[{"name":"A","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},{"name":"B","valueFrom":{"fieldRef":{"apiVersion":"v2","fieldPath":"x"}}},{"name":"C","valueFrom":{"resourceFieldRef":{"divisor":"0","resource":"limits.cpu"}}}],"name":"e","resources":{}}],` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"resources and overhead rounded up to millis; pod-level resources not",
			`{"spec":{"overhead":{"cpu":"0.0001"},"resources":{"limits":{"cpu":"0.0001"}},"ephemeralContainers":[{"name":"e","resources":{"limits":{"cpu":"1.0001","memory":"1.5Ki"},"requests":{"cpu":"-0.0001","memory":"100u"}}}]}}`,
			meta + `"spec":{"containers":null,"dnsPolicy":"ClusterFirst","ephemeralContainers":[{"name":"e","resources":{"limits":{"cpu":"1001m","memory":"1536"},"requests":{"cpu":"-1m","memory":"1m"}}}],"overhead":{"cpu":"1m"},"resources":{"limits":{"cpu":"100u"}},` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"rounding keeps the suffix family: a binary value rounded to a whole number of Mi",
			`{"spec":{"ephemeralContainers":[{"name":"e","resources":{"limits":{"memory":"1023.9999999Ki"}}}]}}`,
			meta + `"spec":{"containers":null,"dnsPolicy":"ClusterFirst","ephemeralContainers":[{"name":"e","resources":{"limits":{"memory":"1Mi"}}}],` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"probes: the four numbers; httpGet path and scheme; other handlers nothing",
			`{"spec":{"ephemeralContainers":[{"name":"e","livenessProbe":{"httpGet":{"port":80}},"readinessProbe":{"tcpSocket":{"port":80},"periodSeconds":5,"timeoutSeconds":0},"startupProbe":{"grpc":{"port":9090}}}]}}`,
			meta + `"spec":{"containers":null,"dnsPolicy":"ClusterFirst","ephemeralContainers":[{"livenessProbe":{"failureThreshold":3,"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},"name":"e","readinessProbe":{"failureThreshold":3,"periodSeconds":5,"successThreshold":1,"tcpSocket":{"port":80},"timeoutSeconds":1},"resources":{},"startupProbe":{"failureThreshold":3,"grpc":{"port":9090,"service":null},"periodSeconds":10,"successThreshold":1,"timeoutSeconds":1}}],` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"hooks: an httpGet gets path and scheme",
			`{"spec":{"ephemeralContainers":[{"name":"e","lifecycle":{"postStart":{"httpGet":{"port":80,"path":"/x"}},"preStop":{"sleep":{"seconds":5}}}}]}}`,
			meta + `"spec":{"containers":null,"dnsPolicy":"ClusterFirst","ephemeralContainers":[{"lifecycle":{"postStart":{"httpGet":{"path":"/x","port":80,"scheme":"HTTP"}},"preStop":{"sleep":{"seconds":5}}},"name":"e","resources":{}}],` + podDefaults[len(`"dnsPolicy":"ClusterFirst",`):] + `}}`},
		{"volumes: no source is an emptyDir; hostPath type; file modes",
			`{"spec":{"volumes":[{"name":"a"},{"name":"b","emptyDir":null},{"name":"c","hostPath":{"path":"/p"}},{"name":"d","secret":{"secretName":"s"}},{"name":"e","configMap":{"name":"c","defaultMode":256}}]}}`,
			meta + `"spec":{"containers":null,` + podDefaults + `,"volumes":[{"emptyDir":{},"name":"a"},{"emptyDir":{},"name":"b"},{"hostPath":{"path":"/p","type":""},"name":"c"},{"name":"d","secret":{"defaultMode":420,"secretName":"s"}},{"configMap":{"defaultMode":256,"name":"c"},"name":"e"}]}}`},
		{"volumes: downward API and projected sources",
			`{"spec":{"volumes":[{"name":"a","downwardAPI":{"items":[{"path":"p","fieldRef":{"fieldPath":"metadata.name"}}]}},{"name":"b","projected":{"sources":[{"downwardAPI":{"items":[{"path":"p","fieldRef":{"fieldPath":"metadata.name"}}]}},{"serviceAccountToken":{"path":"t"}},{"secret":{"name":"s"}}]}}]}}`,
			meta + `"spec":{"containers":null,` + podDefaults + `,"volumes":[{"downwardAPI":{"defaultMode":420,"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"},"path":"p"}]},"name":"a"},{"name":"b","projected":{"defaultMode":420,"sources":[{"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"},"path":"p"}]}},{"serviceAccountToken":{"expirationSeconds":3600,"path":"t"}},{"secret":{"name":"s"}}]}}]}}`},
		{"volumes kruise does not default: iscsi, rbd, an image's pull policy, an ephemeral claim's quantities",
			`{"spec":{"volumes":[{"name":"a","iscsi":{"targetPortal":"t","iqn":"q","lun":0}},{"name":"b","rbd":{"monitors":["m"],"image":"i"}},{"name":"c","image":{"reference":"img"}},{"name":"d","ephemeral":{"volumeClaimTemplate":{"spec":{"resources":{"requests":{"storage":"0.0001"}}}}}}]}}`,
			meta + `"spec":{"containers":null,` + podDefaults + `,"volumes":[{"iscsi":{"iqn":"q","lun":0,"targetPortal":"t"},"name":"a"},{"name":"b","rbd":{"image":"i","monitors":["m"]}},{"image":{"reference":"img"},"name":"c"},{"ephemeral":{"volumeClaimTemplate":{"metadata":{"creationTimestamp":null},"spec":{"resources":{"requests":{"storage":"100u"}}}}},"name":"d"}]}}`},
		{"serviceAccountName is not copied to serviceAccount (Kubernetes 1.32)",
			`{"spec":{"containers":[],"serviceAccountName":"sa"}}`,
			meta + `"spec":{"containers":[],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"serviceAccountName":"sa","terminationGracePeriodSeconds":30}}`},
	} {
		if got := defaultedJSON(t, Default, c.in); got != c.want {
			t.Errorf("%s:\n in:   %s\n got:  %s\n want: %s", c.name, c.in, got, c.want)
		}
	}
}

// TestDefaultClaimTemplateRules: one rule per case.
func TestDefaultClaimTemplateRules(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"phase Pending, the typed encoding, no volumeMode",
			`{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1024Mi"}}},"x":1}`,
			`{"metadata":{"creationTimestamp":null,"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}},"status":{"phase":"Pending"}}`},
		{"a phase set is kept; the three resource lists rounded up to millis (an exponent stays one)",
			`{"apiVersion":"v1","kind":"PersistentVolumeClaim","spec":{"resources":{"limits":{"storage":"0.0001"},"requests":{"storage":1e-7}}},"status":{"phase":"Bound","capacity":{"storage":"1.0001"}}}`,
			`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"creationTimestamp":null},"spec":{"resources":{"limits":{"storage":"1m"},"requests":{"storage":"1e-3"}}},"status":{"capacity":{"storage":"1001m"},"phase":"Bound"}}`},
	} {
		if got := defaultedJSON(t, DefaultClaimTemplate, c.in); got != c.want {
			t.Errorf("%s:\n in:   %s\n got:  %s\n want: %s", c.name, c.in, got, c.want)
		}
	}
}

// TestImagePullsAlways: the pull policy Kubernetes derives from an image
// reference (expectations read from k8s.io/kubernetes' ParseImageName; the
// example module compares many more).
func TestImagePullsAlways(t *testing.T) {
	sha := strings.Repeat("0", 64)
	for image, want := range map[string]bool{
		"nginx": true, "nginx:latest": true, "nginx:1.25": false, "nginx:LATEST": false, "docker.io/library/nginx": true,
		"nginx@sha256:" + sha: false, "nginx:latest@sha256:" + sha: true, "nginx:1.2@sha256:" + sha: false,
		"nginx:latest@sha256:" + strings.ToUpper(strings.Repeat("a", 64)): false, // the hex must be lowercase
		"nginx:latest@sha256:abc": false, "nginx:latest@md5:" + strings.Repeat("d", 32): false,
		"nginx:latest@sha512:" + strings.Repeat("c", 128): true,
		"Nginx": false, "Registry.Example.com/team/x": true, "registry.example.com/Team/x": false,
		"localhost:5000/app": true, "[::1]:5000/app:latest": true, "index.docker.io/app": true,
		strings.Repeat("a", 64): false, strings.Repeat("a", 63): true,
		"foo/" + strings.Repeat("a", 252): false, "foo/" + strings.Repeat("a", 251): true, // the path: at most 255

		"": false, ":latest": false, "foo:": false, "foo bar": false, "foo__bar": true, "foo___bar": false,
	} {
		if got := pullsAlways(image); got != want {
			t.Errorf("pullsAlways(%q) = %v, want %v", image, got, want)
		}
	}
}

// TestDefaultLeavesItsInputAlone: Default and DefaultClaimTemplate never
// change the tree they are given, and give the same result every time.
func TestDefaultLeavesItsInputAlone(t *testing.T) {
	const in = `{"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"0.0001"}},"livenessProbe":{"httpGet":{"port":80}}}],"volumes":[{"name":"v"},{"name":"s","secret":{}}]}}`
	template, pristine := tree(t, in), tree(t, in)
	first, err := Default(template)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(template, pristine) {
		t.Fatalf("Default changed its input: %v", template)
	}
	again, _ := Default(template)
	if !reflect.DeepEqual(first, again) {
		t.Fatal("Default gave two results")
	}
	const claimIn = `{"spec":{"resources":{"requests":{"storage":"0.0001"}}},"status":{}}`
	claim, pristineClaim := tree(t, claimIn), tree(t, claimIn)
	if _, err := DefaultClaimTemplate(claim); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(claim, pristineClaim) {
		t.Fatalf("DefaultClaimTemplate changed its input: %v", claim)
	}
}

// TestDefaultErrorsNameTheField: a member the types refuse is Encode's
// *Error, its path from the template's (or the claim's) root.
func TestDefaultErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		f    func(map[string]any) (map[string]any, error)
		in   string
		path string
	}{
		{Default, `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"lots"}}}]}}`, "spec.containers[0].resources.limits[cpu]"},
		{Default, `{"spec":{"volumes":[{"name":"v","secret":{"defaultMode":"420"}}]}}`, "spec.volumes[0].secret.defaultMode"},
		{DefaultClaimTemplate, `{"spec":{"resources":{"requests":{"storage":true}}}}`, "spec.resources.requests[storage]"},
		{DefaultClaimTemplate, `{"status":{"phase":1}}`, "status.phase"},
	} {
		_, err := c.f(tree(t, c.in))
		var e *Error
		if !errors.As(err, &e) || e.Path != c.path {
			t.Errorf("%s: got %v, want an *Error at %s", c.in, err, c.path)
		}
	}
}

// TestDefaultsTypesInTable: the table has the types the defaults write
// (a regenerated table that lost one would write an empty object blindly).
func TestDefaultsTypesInTable(t *testing.T) {
	for _, path := range [][]string{{"spec", "securityContext"}, {"spec", "volumes", "emptyDir"}, {"spec", "volumes"}} {
		if _, ok := typeAt(podTemplateSpecType, path...); !ok {
			t.Errorf("the table has no %v", path)
		}
	}
	if corev1Types[persistentVolumeClaimType].name != "v1.PersistentVolumeClaim" {
		t.Errorf("the claim root is %s", corev1Types[persistentVolumeClaimType].name)
	}
}
