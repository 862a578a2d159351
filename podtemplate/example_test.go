package podtemplate_test

import (
	"encoding/json"
	"fmt"

	"github.com/clonecore/cloneset/podtemplate"
)

// A pod template as a user writes it, and as kruise's CloneSet webhook
// leaves it: the typed encoding with the Kubernetes core defaults (the pod
// spec's, the container's pull policy Always, the probe's numbers and
// httpGet, the port's protocol, the secret volume's mode) and the CPU
// request rounded up to millis.
func ExampleDefault() {
	var template map[string]any
	_ = json.Unmarshal([]byte(`{
		"metadata": {"labels": {"app": "web"}},
		"spec": {
			"containers": [{
				"name": "web",
				"image": "nginx:1.25",
				"ports": [{"containerPort": 80}],
				"readinessProbe": {"httpGet": {"port": 80}},
				"resources": {"requests": {"cpu": "0.0001", "memory": "1024Mi"}}
			}],
			"volumes": [{"name": "certs", "secret": {"secretName": "certs"}}]
		}
	}`), &template)
	defaulted, err := podtemplate.Default(template)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.MarshalIndent(defaulted, "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "metadata": {
	//     "creationTimestamp": null,
	//     "labels": {
	//       "app": "web"
	//     }
	//   },
	//   "spec": {
	//     "containers": [
	//       {
	//         "image": "nginx:1.25",
	//         "imagePullPolicy": "Always",
	//         "name": "web",
	//         "ports": [
	//           {
	//             "containerPort": 80,
	//             "protocol": "TCP"
	//           }
	//         ],
	//         "readinessProbe": {
	//           "failureThreshold": 3,
	//           "httpGet": {
	//             "path": "/",
	//             "port": 80,
	//             "scheme": "HTTP"
	//           },
	//           "periodSeconds": 10,
	//           "successThreshold": 1,
	//           "timeoutSeconds": 1
	//         },
	//         "resources": {
	//           "requests": {
	//             "cpu": "1m",
	//             "memory": "1Gi"
	//           }
	//         },
	//         "terminationMessagePath": "/dev/termination-log",
	//         "terminationMessagePolicy": "File"
	//       }
	//     ],
	//     "dnsPolicy": "ClusterFirst",
	//     "restartPolicy": "Always",
	//     "schedulerName": "default-scheduler",
	//     "securityContext": {},
	//     "terminationGracePeriodSeconds": 30,
	//     "volumes": [
	//       {
	//         "name": "certs",
	//         "secret": {
	//           "defaultMode": 420,
	//           "secretName": "certs"
	//         }
	//       }
	//     ]
	//   }
	// }
}

// A volume claim template as the webhook leaves it: the typed encoding,
// phase Pending, no volumeMode.
func ExampleDefaultClaimTemplate() {
	var claim map[string]any
	_ = json.Unmarshal([]byte(`{"metadata": {"name": "data"},
		"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}}`), &claim)
	defaulted, err := podtemplate.DefaultClaimTemplate(claim)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(defaulted)
	fmt.Println(string(out))
	// Output:
	// {"metadata":{"creationTimestamp":null,"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"10Gi"}}},"status":{"phase":"Pending"}}
}

// ExampleDecodedKey decides, as kruise's mutating webhook decides with
// reflect.DeepEqual, whether an update changed the template: an empty
// list for an absent one is a change that the typed JSON does not show.
func ExampleDecodedKey() {
	stored, _ := podtemplate.DecodeJSON([]byte(`{"spec":{"containers":[{"name":"web","image":"nginx:1.25"}]}}`))
	update, _ := podtemplate.DecodeJSON([]byte(`{"spec":{"containers":[{"name":"web","image":"nginx:1.25","env":[]}]}}`))
	a, _ := podtemplate.Encode(stored)
	b, _ := podtemplate.Encode(update)
	ja, _ := podtemplate.AppendJSON(nil, a)
	jb, _ := podtemplate.AppendJSON(nil, b)
	ka, _ := podtemplate.DecodedKey(stored)
	kb, _ := podtemplate.DecodedKey(update)
	fmt.Println("same JSON:", string(ja) == string(jb))
	fmt.Println("same Go value:", ka == kb)
	// Output:
	// same JSON: true
	// same Go value: false
}

// ExampleDecodeJSON reads a template keeping what the typed decoder reads
// from the text: a fieldsV1's text, integers beyond 2^53.
func ExampleDecodeJSON() {
	tree, err := podtemplate.DecodeJSON([]byte(`{"metadata":{"managedFields":[{"fieldsV1":{"f:b":{},"f:a":{}}}]},"spec":{"activeDeadlineSeconds":9007199254740993,"containers":[]}}`))
	if err != nil {
		panic(err)
	}
	typed, _ := podtemplate.Encode(tree)
	b, _ := podtemplate.AppendJSON(nil, typed)
	fmt.Println(string(b))
	// Output: {"metadata":{"creationTimestamp":null,"managedFields":[{"fieldsV1":{"f:b":{},"f:a":{}}}]},"spec":{"containers":[],"activeDeadlineSeconds":9007199254740993}}
}
