package kubecontroller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/clonecore/cloneset/examples/kubecontroller/wiretrim"
	"github.com/clonecore/cloneset/requests"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// RESTWriter sends the library's requests to the API server as they are:
// a create's object and a patch's body are the request's own JSON bytes,
// sent with their media types, and the answer asked for is the object's
// metadata alone (PartialObjectMetadata, protobuf), of which the Sender
// reads only the resourceVersion. A client.Client decodes the request's JSON
// into a typed object and encodes it again (protobuf for the core types) and
// decodes the whole object the server answers (a pod, after every patch of
// it): half the controller's cost of a write, and the server's encoding of
// the whole object too. The API server's answers and errors are the same
// (apierrors read them as from any client). Every write of one RESTWriter
// shares its client's rate limit (the configuration's QPS and Burst).
//
// SetupWithManager gives the Reconciler one (Reconciler.Writer) from the
// manager's configuration and HTTP client. A RESTWriter is safe for
// concurrent use.
type RESTWriter struct {
	client rest.Interface
}

// partialObjectMetadata is the Accept header of a write: the object's
// metadata, in protobuf, else JSON, else the whole object as JSON (a server
// without the transformation answers so).
const partialObjectMetadata = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
	"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

// NewRESTWriter returns a RESTWriter for the cluster of cfg, over
// httpClient (rest.HTTPClientFor(cfg) when nil; a manager's
// GetHTTPClient shares its connections).
func NewRESTWriter(cfg *rest.Config, httpClient *http.Client) (*RESTWriter, error) {
	c := metadata.ConfigFor(cfg) // decodes metav1's kinds, PartialObjectMetadata and Status among them
	c.GroupVersion = &schema.GroupVersion{}
	c.APIPath = "/paths-are-absolute"
	if httpClient == nil {
		var err error
		if httpClient, err = rest.HTTPClientFor(c); err != nil {
			return nil, fmt.Errorf("the writer's HTTP client: %w", err)
		}
	}
	rc, err := rest.RESTClientForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, fmt.Errorf("the writer's client: %w", err)
	}
	return &RESTWriter{client: rc}, nil
}

// path is the URL path of a request's object (without its name when
// named is false), of the resource's API group and version: core/v1, apps/v1,
// apps.kruise.io at the CloneSet's version, or apps.kruise.io/v1beta1 for
// the ImagePullJobs of the image pre-download.
func path(r requests.Request, cloneSet schema.GroupVersionKind, named bool) ([]string, error) {
	var p []string
	switch r.Resource {
	case requests.ResourcePods, requests.ResourcePersistentVolumeClaims:
		p = []string{"api", "v1"}
	case requests.ResourceControllerRevisions:
		p = []string{"apis", "apps", "v1"}
	case requests.ResourceCloneSets:
		p = []string{"apis", cloneSet.Group, cloneSet.Version}
	case requests.ResourceImagePullJobs:
		p = []string{"apis", ImagePullJobV1beta1.Group, ImagePullJobV1beta1.Version}
	default:
		return nil, fmt.Errorf("unknown resource %q", r.Resource)
	}
	if r.Namespace == "" {
		return nil, errors.New("no namespace")
	}
	p = append(p, "namespaces", r.Namespace, string(r.Resource))
	if named {
		if r.Name == "" {
			return nil, errors.New("no name")
		}
		p = append(p, r.Name)
		if r.Subresource != "" {
			p = append(p, r.Subresource)
		}
	}
	return p, nil
}

// create sends a create with the request's object as its body.
func (w *RESTWriter) create(ctx context.Context, r requests.Request, cloneSet schema.GroupVersionKind) error {
	p, err := path(r, cloneSet, false)
	if err != nil {
		return err
	}
	if len(r.Object) == 0 {
		return errors.New("object: empty")
	}
	return w.client.Post().AbsPath(p...).
		SetHeader("Content-Type", runtime.ContentTypeJSON).SetHeader("Accept", partialObjectMetadata).
		Body([]byte(r.Object)).Do(ctx).Error()
}

// delete sends a delete with the preconditions as its options.
func (w *RESTWriter) delete(ctx context.Context, r requests.Request, cloneSet schema.GroupVersionKind, pre *metav1.Preconditions) error {
	p, err := path(r, cloneSet, true)
	if err != nil {
		return err
	}
	req := w.client.Delete().AbsPath(p...).SetHeader("Accept", partialObjectMetadata)
	if pre != nil {
		body, err := json.Marshal(metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}, Preconditions: pre})
		if err != nil {
			return err
		}
		req = req.SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body)
	}
	return req.Do(ctx).Error()
}

// patch sends a patch (its body with the preconditions in it) and returns
// the object's new resourceVersion.
func (w *RESTWriter) patch(ctx context.Context, r requests.Request, cloneSet schema.GroupVersionKind, body []byte) (string, error) {
	p, err := path(r, cloneSet, true)
	if err != nil {
		return "", err
	}
	result := w.client.Patch(types.PatchType(r.PatchType)).AbsPath(p...).
		SetHeader("Accept", partialObjectMetadata).Body(body).Do(ctx)
	if err := result.Error(); err != nil {
		return "", err
	}
	return resourceVersionOf(result)
}

// resourceVersionOf reads the resourceVersion of the object a write
// answered: straight from the bytes of its metadata in protobuf
// (wiretrim.ResourceVersion: the answer is not decoded, nor its
// managedFields), else from its metadata decoded (PartialObjectMetadata), or,
// when the server answered the whole object as JSON, from that.
func resourceVersionOf(result rest.Result) (string, error) {
	if raw, err := result.Raw(); err == nil {
		if rv, ok := wiretrim.ResourceVersion(raw); ok {
			return rv, nil
		}
	}
	obj, err := result.Get()
	switch {
	case err == nil:
		if m, ok := obj.(metav1.Object); ok {
			return m.GetResourceVersion(), nil
		}
		return "", fmt.Errorf("the answer is a %T, not an object", obj)
	case runtime.IsNotRegisteredError(err):
		raw, rerr := result.Raw()
		if rerr != nil {
			return "", rerr
		}
		var partial metav1.PartialObjectMetadata
		if err := json.Unmarshal(raw, &partial); err != nil {
			return "", fmt.Errorf("the answer: %v", err)
		}
		return partial.ResourceVersion, nil
	default:
		return "", fmt.Errorf("the answer: %w", err)
	}
}
