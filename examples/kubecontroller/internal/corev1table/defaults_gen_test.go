package corev1table

import (
	"encoding/json"
	"fmt"

	"pgregory.net/rapid"
)

// defaultsGen generates pod templates and claim templates built to make
// every default kruise injects fire, next to members that look alike and
// get none: each defaulted field absent, empty, null or set; probes and
// hooks of every handler kind; env references of every kind; ports with
// and without protocol and host port; every volume source (the ones with
// defaults, the ones whose Kubernetes declarative defaults kruise does not
// apply: iscsi, rbd, azureDisk, azureFile, scaleIO; ephemeral claims and
// image volumes); init, regular and ephemeral containers; host network;
// service accounts; resource lists with quantities that rounding to millis
// changes or keeps, as strings and as numbers.
type defaultsGen struct {
	t *rapid.T
}

// often is true three times in four.
func (g *defaultsGen) often(label string) bool {
	return rapid.IntRange(0, 3).Draw(g.t, label) != 0
}

// pick draws one of the values (nil is an explicit null).
func (g *defaultsGen) pick(label string, values ...any) any {
	return values[rapid.IntRange(0, len(values)-1).Draw(g.t, label)]
}

// maybeSet sets m[name] to one of values, or leaves it out.
func (g *defaultsGen) maybeSet(m map[string]any, name string, values ...any) {
	if rapid.Bool().Draw(g.t, name+"?") {
		m[name] = g.pick(name, values...)
	}
}

// n draws a count in [least, most].
func (g *defaultsGen) n(label string, least, most int) int {
	return rapid.IntRange(least, most).Draw(g.t, label)
}

// roundingSamples are quantities that rounding up to millis changes (and
// their neighbours it keeps), as strings and as JSON numbers.
var roundingSamples = []any{
	"0.0001", "1.0001", "1.5Ki", "1023.9999999Ki", "100u", "0.5m", "1n", "1e-7", "1.100u", "-0.0001",
	"9.9999999999999999999", "250m", "1.5", "1Gi", "0.5Gi", "128974848", "129e6", "1000M", "1e9", "0", "1m",
	json.Number("0.0005"), json.Number("2"), json.Number("1e-4"), json.Number("134217728"),
}

// resourceList draws a resource list of one to three resources.
func (g *defaultsGen) resourceList(label string) map[string]any {
	out := map[string]any{}
	for i := g.n(label+"/len", 1, 3); i > 0; i-- {
		name := g.pick(label+"/name", "cpu", "memory", "ephemeral-storage", "example.com/gpu", "hugepages-2Mi").(string)
		out[name] = g.pick(label+"/quantity", roundingSamples...)
	}
	return out
}

// image draws an image reference: a sample, or one from the grammar's
// alphabet.
func (g *defaultsGen) image(label string) any {
	if rapid.IntRange(0, 4).Draw(g.t, label+"/generated") == 0 {
		return imageText.Draw(g.t, label+"/text")
	}
	return g.pick(label, "nginx", "nginx:latest", "nginx:1.25", "registry.example.com/team/api", "Nginx:latest",
		"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "localhost:5000/app", "")
}

// template draws a pod template.
func (g *defaultsGen) template() map[string]any {
	spec := map[string]any{}
	g.maybeSet(spec, "dnsPolicy", "", "Default", nil)
	g.maybeSet(spec, "restartPolicy", "", "Never", nil)
	g.maybeSet(spec, "securityContext", nil, map[string]any{}, map[string]any{"runAsUser": 1000, "fsGroup": 2000})
	g.maybeSet(spec, "terminationGracePeriodSeconds", nil, 0, 10)
	g.maybeSet(spec, "schedulerName", "", "custom-scheduler", nil)
	g.maybeSet(spec, "hostNetwork", true, false)
	g.maybeSet(spec, "serviceAccountName", "sa", "")
	g.maybeSet(spec, "serviceAccount", "legacy", "")
	if rapid.Bool().Draw(g.t, "overhead?") {
		spec["overhead"] = g.resourceList("overhead")
	}
	if rapid.IntRange(0, 3).Draw(g.t, "podResources?") == 0 { // pod-level: not rounded by kruise
		spec["resources"] = map[string]any{"limits": g.resourceList("podLimits")}
	}
	volumes := []any{}
	for i := g.n("volumes", 0, 5); i > 0; i-- {
		volumes = append(volumes, g.volume(fmt.Sprintf("v%d", i)))
	}
	g.maybeList(spec, "volumes", volumes)
	for _, kind := range []string{"initContainers", "containers", "ephemeralContainers"} {
		least := 0
		if kind == "containers" {
			least = 1
		}
		var cs []any
		for i := g.n(kind, least, 3); i > 0; i-- {
			cs = append(cs, g.container(kind, i))
		}
		g.maybeList(spec, kind, cs)
	}
	template := map[string]any{"spec": spec}
	if rapid.Bool().Draw(g.t, "metadata?") {
		template["metadata"] = map[string]any{"labels": map[string]any{"app": "web"}, "creationTimestamp": g.pick("creationTimestamp", nil, "2024-01-02T03:04:05Z")}
	}
	return template
}

// maybeList sets m[name] to l (an empty l: absent, null or []).
func (g *defaultsGen) maybeList(m map[string]any, name string, l []any) {
	if len(l) > 0 {
		m[name] = l
		return
	}
	switch rapid.IntRange(0, 2).Draw(g.t, name+"/empty") {
	case 1:
		m[name] = nil
	case 2:
		m[name] = []any{}
	}
}

// container draws a container of a kind.
func (g *defaultsGen) container(kind string, i int) map[string]any {
	label := fmt.Sprintf("%s%d", kind, i)
	c := map[string]any{"name": label}
	if g.often(label + "/image?") {
		c["image"] = g.image(label + "/image")
	}
	g.maybeSet(c, "imagePullPolicy", "", "IfNotPresent", "Never", "Always")
	g.maybeSet(c, "terminationMessagePath", "", "/tmp/message")
	g.maybeSet(c, "terminationMessagePolicy", "", "FallbackToLogsOnError")
	if kind == "ephemeralContainers" {
		g.maybeSet(c, "targetContainerName", "containers1")
	}
	if g.often(label + "/ports?") {
		var ports []any
		for j := g.n(label+"/ports", 1, 2); j > 0; j-- {
			p := map[string]any{"containerPort": g.pick(label+"/containerPort", 80, 8080)}
			g.maybeSet(p, "protocol", "", "UDP", "TCP", nil)
			g.maybeSet(p, "hostPort", 0, 9000)
			g.maybeSet(p, "name", "http")
			ports = append(ports, p)
		}
		c["ports"] = ports
	}
	if g.often(label + "/env?") {
		var env []any
		for j := g.n(label+"/env", 1, 3); j > 0; j-- {
			env = append(env, g.envVar(fmt.Sprintf("%s/env%d", label, j)))
		}
		c["env"] = env
	}
	if g.often(label + "/resources?") {
		r := map[string]any{}
		if rapid.Bool().Draw(g.t, label+"/limits?") {
			r["limits"] = g.resourceList(label + "/limits")
		}
		if rapid.Bool().Draw(g.t, label+"/requests?") {
			r["requests"] = g.resourceList(label + "/requests")
		}
		c["resources"] = g.pick(label+"/resourcesNull", r, r, nil)
	}
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if g.often(label + "/" + probe + "?") {
			c[probe] = g.probe(label + "/" + probe)
		}
	}
	if g.often(label + "/lifecycle?") {
		l := map[string]any{}
		for _, hook := range []string{"postStart", "preStop"} {
			if g.often(label + "/" + hook + "?") {
				l[hook] = g.handler(label+"/"+hook, "sleep")
			}
		}
		c["lifecycle"] = l
	}
	if kind == "initContainers" {
		g.maybeSet(c, "restartPolicy", "Always")
	}
	return c
}

// envVar draws an environment variable of any kind.
func (g *defaultsGen) envVar(label string) map[string]any {
	e := map[string]any{"name": "E"}
	switch rapid.IntRange(0, 4).Draw(g.t, label) {
	case 0:
		e["value"] = "v"
	case 1, 2:
		ref := map[string]any{"fieldPath": "metadata.name"}
		g.maybeSet(ref, "apiVersion", "", "v1", "v2", nil)
		e["valueFrom"] = map[string]any{"fieldRef": ref}
	case 3:
		ref := map[string]any{"resource": "limits.cpu"}
		g.maybeSet(ref, "divisor", "1m", "1", json.Number("1"), "0.0001")
		e["valueFrom"] = map[string]any{"resourceFieldRef": ref}
	case 4:
		e["valueFrom"] = map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}
	}
	return e
}

// probe draws a probe of any handler kind, its numbers absent, zero, null
// or set.
func (g *defaultsGen) probe(label string) map[string]any {
	p := g.handler(label, "grpc")
	for _, f := range []string{"timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold", "initialDelaySeconds"} {
		g.maybeSet(p, f, 0, 5, nil)
	}
	g.maybeSet(p, "terminationGracePeriodSeconds", 0, 7, nil)
	return p
}

// handler draws a handler: exec, httpGet, tcpSocket or the kind's own
// (grpc for probes, sleep for hooks), or none.
func (g *defaultsGen) handler(label, own string) map[string]any {
	h := map[string]any{}
	switch rapid.IntRange(0, 4).Draw(g.t, label+"/handler") {
	case 0:
		h["exec"] = map[string]any{"command": []any{"true"}}
	case 1, 2:
		get := map[string]any{"port": g.pick(label+"/port", 80, "http")}
		g.maybeSet(get, "path", "", "/healthz", nil)
		g.maybeSet(get, "scheme", "", "HTTPS", nil)
		g.maybeSet(get, "host", "example.com")
		g.maybeSet(get, "httpHeaders", []any{map[string]any{"name": "X", "value": "1"}})
		h["httpGet"] = get
	case 3:
		h["tcpSocket"] = map[string]any{"port": 80}
	case 4:
		if own == "grpc" {
			h["grpc"] = map[string]any{"port": 9090}
		} else {
			h["sleep"] = map[string]any{"seconds": 5}
		}
	}
	return h
}

// volume draws a volume of any source.
func (g *defaultsGen) volume(name string) map[string]any {
	v := map[string]any{"name": name}
	mode := func(m map[string]any) map[string]any {
		g.maybeSet(m, "defaultMode", 0o400, 0, nil)
		return m
	}
	items := func(label string) []any {
		var out []any
		for i := g.n(label, 1, 2); i > 0; i-- {
			item := map[string]any{"path": fmt.Sprintf("f%d", i)}
			if rapid.IntRange(0, 2).Draw(g.t, label+"/kind") == 0 {
				ref := map[string]any{"resource": "limits.memory"}
				g.maybeSet(ref, "divisor", "1Mi", "0.0001")
				item["resourceFieldRef"] = ref
			} else {
				ref := map[string]any{"fieldPath": "metadata.labels"}
				g.maybeSet(ref, "apiVersion", "", "v1", nil)
				item["fieldRef"] = ref
			}
			out = append(out, item)
		}
		return out
	}
	switch g.pick(name+"/source", "none", "emptyDir", "secret", "configMap", "downwardAPI", "projected", "hostPath",
		"iscsi", "rbd", "azureDisk", "azureFile", "scaleIO", "ephemeral", "image", "persistentVolumeClaim", "nfs", "csi", "cephfs") {
	case "none":
		g.maybeSet(v, "emptyDir", nil)
	case "emptyDir":
		e := map[string]any{}
		g.maybeSet(e, "medium", "Memory", "")
		g.maybeSet(e, "sizeLimit", "64Mi", "0.0001")
		v["emptyDir"] = e
	case "secret":
		v["secret"] = mode(map[string]any{"secretName": "s"})
	case "configMap":
		v["configMap"] = mode(map[string]any{"name": "c", "items": []any{map[string]any{"key": "k", "path": "p"}}})
	case "downwardAPI":
		v["downwardAPI"] = mode(map[string]any{"items": items(name + "/items")})
	case "projected":
		var sources []any
		for i := g.n(name+"/sources", 1, 4); i > 0; i-- {
			switch g.pick(fmt.Sprintf("%s/source%d", name, i), "secret", "configMap", "downwardAPI", "serviceAccountToken", "clusterTrustBundle") {
			case "secret":
				sources = append(sources, map[string]any{"secret": map[string]any{"name": "s"}})
			case "configMap":
				sources = append(sources, map[string]any{"configMap": map[string]any{"name": "c"}})
			case "downwardAPI":
				sources = append(sources, map[string]any{"downwardAPI": map[string]any{"items": items(name + "/projectedItems")}})
			case "serviceAccountToken":
				token := map[string]any{"path": "token"}
				g.maybeSet(token, "expirationSeconds", 600, 0, nil)
				g.maybeSet(token, "audience", "api")
				sources = append(sources, map[string]any{"serviceAccountToken": token})
			case "clusterTrustBundle":
				sources = append(sources, map[string]any{"clusterTrustBundle": map[string]any{"name": "b", "path": "b.pem"}})
			}
		}
		v["projected"] = mode(map[string]any{"sources": sources})
	case "hostPath":
		h := map[string]any{"path": "/var/log"}
		g.maybeSet(h, "type", "", "Directory", nil)
		v["hostPath"] = h
	case "iscsi":
		v["iscsi"] = map[string]any{"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0}
	case "rbd":
		v["rbd"] = map[string]any{"monitors": []any{"10.0.0.2:6789"}, "image": "img"}
	case "azureDisk":
		v["azureDisk"] = map[string]any{"diskName": "d", "diskURI": "https://example.com/d"}
	case "azureFile":
		v["azureFile"] = map[string]any{"secretName": "s", "shareName": "share"}
	case "scaleIO":
		v["scaleIO"] = map[string]any{"gateway": "https://gw", "system": "sys", "secretRef": map[string]any{"name": "s"}}
	case "ephemeral":
		v["ephemeral"] = map[string]any{"volumeClaimTemplate": map[string]any{"spec": map[string]any{
			"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": g.resourceList(name + "/ephemeral")},
		}}}
	case "image":
		img := map[string]any{"reference": g.image(name + "/reference")}
		g.maybeSet(img, "pullPolicy", "", "Never")
		v["image"] = img
	case "persistentVolumeClaim":
		v["persistentVolumeClaim"] = map[string]any{"claimName": "data"}
	case "nfs":
		v["nfs"] = map[string]any{"server": "nfs.example.com", "path": "/export"}
	case "csi":
		v["csi"] = map[string]any{"driver": "csi.example.com", "volumeAttributes": map[string]any{"a": "b"}}
	case "cephfs":
		v["cephfs"] = map[string]any{"monitors": []any{"10.0.0.3:6789"}}
	}
	return v
}

// claim draws a volume claim template.
func (g *defaultsGen) claim() map[string]any {
	resources := map[string]any{}
	if g.often("requests?") {
		resources["requests"] = g.resourceList("requests")
	}
	if rapid.Bool().Draw(g.t, "limits?") {
		resources["limits"] = g.resourceList("limits")
	}
	spec := map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": resources}
	g.maybeSet(spec, "storageClassName", "fast", "")
	g.maybeSet(spec, "volumeMode", "Block", "Filesystem", nil)
	claim := map[string]any{"metadata": map[string]any{"name": "data"}, "spec": spec}
	g.maybeSet(claim, "apiVersion", "v1")
	g.maybeSet(claim, "kind", "PersistentVolumeClaim")
	if rapid.Bool().Draw(g.t, "status?") {
		status := map[string]any{}
		g.maybeSet(status, "phase", "", "Bound", nil)
		if g.often("capacity?") {
			status["capacity"] = g.resourceList("capacity")
		}
		claim["status"] = status
	}
	return claim
}
