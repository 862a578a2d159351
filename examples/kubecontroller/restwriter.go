package kubecontroller

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	gopath "path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/wiretrim"
	"github.com/clonecore/cloneset/requests"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/metrics"
	"k8s.io/client-go/util/flowcontrol"
)

// RESTWriter sends the library's requests to the API server as they are:
// a create's object and a patch's body are the request's own JSON bytes,
// sent with their media types, and the answer asked for is the object's
// metadata alone (PartialObjectMetadata, protobuf), of which the Sender
// reads only the resourceVersion. A client.Client decodes the request's JSON
// into a typed object and encodes it again (protobuf for the core types) and
// decodes the whole object the server answers (a pod, after every patch of
// it): half the controller's cost of a write, and the server's encoding of
// the whole object too.
//
// It sends each request with net/http over the client it is given, as
// client-go's REST client would, without the REST client's request
// machinery (a request object, its URL parsed again, the answer read
// into a buffer grown for each answer): the same rate limit (the
// configuration's QPS and Burst, shared by every write of one RESTWriter),
// the same answers and errors (apierrors read them as from any client:
// the Status the server answers, else a generic error of the status code),
// the same retries (an answer 429 or 5xx with a Retry-After of whole
// seconds is sent again after that long, at most maxRetries times; nothing
// else is retried, a write not being idempotent; a write whose context
// ends while it waits returns the context's error), the server's warnings
// handed to the configuration's warning handler (client-go's default
// logger when it has none), and rest_client_requests_total counted.
//
// SetupWithManager gives the Reconciler one (Reconciler.Writer) from the
// manager's configuration and HTTP client. A RESTWriter is safe for
// concurrent use.
type RESTWriter struct {
	client *http.Client
	// base is the server's URL; its path prefixes every request's.
	base *url.URL
	// limiter is the client-side rate limit, nil when there is none.
	limiter flowcontrol.RateLimiter
	// decoder reads the Status of an error answer (its kind and version
	// cleared, as client-go's decoder leaves them).
	decoder runtime.Decoder
	// warnings gets the server's warnings.
	warnings rest.WarningHandlerWithContext
	// sleep waits before a retry (time.Sleep but for ctx; tests replace it).
	sleep func(ctx context.Context, d time.Duration) error
}

// maxRetries is how many times a write answered 429 or 5xx with a
// Retry-After is sent again (client-go's default).
const maxRetries = 10

// maxUnstructuredErrorText is how much of an error answer that is not a
// Status makes the error's message (client-go's cap).
const maxUnstructuredErrorText = 2048

// partialObjectMetadata is the Accept header of a write: the object's
// metadata, in protobuf, else JSON, else the whole object as JSON (a server
// without the transformation answers so).
const partialObjectMetadata = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
	"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

// answerBuffers holds the buffers the answers are read into.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// keptAnswerBuffer is the capacity of an answer buffer put back in the
// pool; a larger one, grown for a large answer, is released.
const keptAnswerBuffer = 64 << 10

// NewRESTWriter returns a RESTWriter for the cluster of cfg, over
// httpClient (rest.HTTPClientFor(cfg) when nil; a manager's
// GetHTTPClient shares its connections).
func NewRESTWriter(cfg *rest.Config, httpClient *http.Client) (*RESTWriter, error) {
	// A REST client is built (below) for its rate limiter alone; it wants a
	// group version and a serializer, which the metadata client's
	// configuration has.
	c := metadata.ConfigFor(cfg)
	c.GroupVersion = &schema.GroupVersion{}
	if httpClient == nil {
		var err error
		if httpClient, err = rest.HTTPClientFor(c); err != nil {
			return nil, fmt.Errorf("the writer's HTTP client: %w", err)
		}
	}
	// The rate limiter as client-go derives it from the configuration.
	rc, err := rest.RESTClientForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, fmt.Errorf("the writer's client: %w", err)
	}
	warnings := c.WarningHandlerWithContext
	if warnings == nil && c.WarningHandler != nil {
		warnings = contextFreeWarnings{c.WarningHandler}
	}
	if warnings == nil {
		warnings = rest.WarningLogger{}
	}
	base, _, err := rest.DefaultServerUrlFor(c)
	if err != nil {
		return nil, fmt.Errorf("the writer's server: %w", err)
	}
	return &RESTWriter{
		client: httpClient, base: base, limiter: rc.GetRateLimiter(),
		decoder:  runtime.WithoutVersionDecoder{Decoder: serializer.NewCodecFactory(statusScheme).UniversalDeserializer()},
		warnings: warnings, sleep: sleepContext,
	}, nil
}

// statusScheme knows metav1's Status (as v1), the kind of an error answer.
var statusScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// contextFreeWarnings is a rest.WarningHandler as a
// rest.WarningHandlerWithContext.
type contextFreeWarnings struct{ rest.WarningHandler }

// HandleWarningHeaderWithContext hands the warning to the handler.
func (w contextFreeWarnings) HandleWarningHeaderWithContext(_ context.Context, code int, agent, text string) {
	w.HandleWarningHeader(code, agent, text)
}

// sleepContext waits d, or until ctx ends (its error).
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
	_, err = w.send(ctx, http.MethodPost, p, runtime.ContentTypeJSON, []byte(r.Object), false)
	return err
}

// delete sends a delete with the preconditions as its options.
func (w *RESTWriter) delete(ctx context.Context, r requests.Request, cloneSet schema.GroupVersionKind, pre *metav1.Preconditions) error {
	p, err := path(r, cloneSet, true)
	if err != nil {
		return err
	}
	var body []byte
	contentType := ""
	if pre != nil {
		if body, err = json.Marshal(metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}, Preconditions: pre}); err != nil {
			return err
		}
		contentType = runtime.ContentTypeJSON
	}
	_, err = w.send(ctx, http.MethodDelete, p, contentType, body, false)
	return err
}

// patch sends a patch (its body with the preconditions in it) and returns
// the object's new resourceVersion.
func (w *RESTWriter) patch(ctx context.Context, r requests.Request, cloneSet schema.GroupVersionKind, body []byte) (string, error) {
	p, err := path(r, cloneSet, true)
	if err != nil {
		return "", err
	}
	return w.send(ctx, http.MethodPatch, p, string(r.PatchType), body, true)
}

// send sends one write to the path of segments p, with body of
// contentType when not empty, and returns the resourceVersion of the
// object answered when wantVersion is set. An answer with a status code
// outside 200-206 is an error (see RESTWriter); so is a failure to send.
func (w *RESTWriter) send(ctx context.Context, method string, p []string, contentType string, body []byte, wantVersion bool) (string, error) {
	u := *w.base
	u.Path = joinPath(w.base.Path, p)
	target := u.String()
	for attempt := 0; ; attempt++ {
		if w.limiter != nil {
			if err := w.limiter.Wait(ctx); err != nil {
				return "", fmt.Errorf("client rate limiter Wait returned an error: %w", err)
			}
		}
		var reader io.Reader
		if body != nil {
			reader = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, reader)
		if err != nil {
			return "", err
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		req.Header.Set("Accept", partialObjectMetadata)
		resp, err := w.client.Do(req)
		if err != nil {
			metrics.RequestResult.Increment(ctx, "<error>", method, w.base.Host)
			return "", err
		}
		metrics.RequestResult.Increment(ctx, strconv.Itoa(resp.StatusCode), method, w.base.Host)
		if wait, ok := retryAfter(resp); ok && attempt < maxRetries {
			drainAndClose(resp.Body)
			if err := w.sleep(ctx, wait); err != nil {
				return "", err
			}
			continue
		}
		return w.answer(ctx, method, resp, wantVersion)
	}
}

// joinPath is prefix and the segments joined by slashes, cleaned (as
// client-go's AbsPath joins them).
func joinPath(prefix string, segments []string) string {
	return gopath.Join(prefix, gopath.Join(segments...))
}

// retryAfter reports whether resp asks for the request again, and after
// how long: a 429 or a 5xx with a Retry-After of whole seconds.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < http.StatusInternalServerError {
		return 0, false
	}
	seconds, ok := retryAfterSeconds(resp)
	return time.Duration(seconds) * time.Second, ok
}

// retryAfterSeconds is the Retry-After header of resp in whole seconds,
// and whether it has one.
func retryAfterSeconds(resp *http.Response) (int, bool) {
	if h := resp.Header.Get("Retry-After"); h != "" {
		if s, err := strconv.Atoi(h); err == nil {
			return s, true
		}
	}
	return 0, false
}

// drainAndClose reads a little of an answer not read (so that its
// connection can carry the next request) and closes it.
func drainAndClose(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 4<<10)
	_ = body.Close()
}

// answer reads the answer of a write: its warnings, then the error it
// says, or the object's resourceVersion when wantVersion is set.
func (w *RESTWriter) answer(ctx context.Context, method string, resp *http.Response, wantVersion bool) (string, error) {
	defer resp.Body.Close()
	buf := answerBuffers.Get().(*bytes.Buffer) // empty: put back reset
	defer func() {
		if buf.Cap() <= keptAnswerBuffer {
			buf.Reset()
			answerBuffers.Put(buf)
		}
	}()
	if resp.ContentLength > 0 && resp.ContentLength <= keptAnswerBuffer {
		buf.Grow(int(resp.ContentLength) + 1)
	}
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return "", fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", err)
	}
	body := buf.Bytes()
	// client-go takes an answer without a type for text, and decodes it as
	// the writer's content type.
	ct := cmp.Or(resp.Header.Get("Content-Type"), runtime.ContentTypeProtobuf)
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", apierrors.NewInternalError(err)
	}
	text := resp.Header.Get("Content-Type") == "" || strings.HasPrefix(mediaType, "text/")
	if values := resp.Header["Warning"]; len(values) > 0 {
		headers, _ := utilnet.ParseWarningHeaders(values)
		for _, h := range headers {
			w.warnings.HandleWarningHeaderWithContext(ctx, h.Code, h.Agent, h.Text)
		}
	}
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		return "", w.errorOf(method, resp, body, mediaType, text)
	}
	if !wantVersion {
		return "", nil
	}
	return resourceVersionOf(body)
}

// errorOf is the error an answer outside 200-206 says, as client-go reads
// it: the Status of its body when the body is one (in JSON, YAML or
// protobuf) and says Failure, else an error of the status code, with the
// body as its message when the body is text.
func (w *RESTWriter) errorOf(method string, resp *http.Response, body []byte, mediaType string, text bool) error {
	if statusMediaTypes[mediaType] && len(body) > 0 {
		if out, _, err := w.decoder.Decode(body, &schema.GroupVersionKind{Version: "v1"}, nil); err == nil {
			if status, ok := out.(*metav1.Status); ok && status.Status == metav1.StatusFailure {
				return apierrors.FromObject(status)
			}
		}
	}
	message := "unknown"
	if text {
		message = strings.TrimSpace(string(body[:min(len(body), maxUnstructuredErrorText)]))
	}
	seconds, _ := retryAfterSeconds(resp)
	return apierrors.NewGenericServerResponse(resp.StatusCode, method, schema.GroupResource{}, "", message, seconds, true)
}

// statusMediaTypes are the media types an error's Status is read from.
var statusMediaTypes = map[string]bool{
	runtime.ContentTypeJSON: true, runtime.ContentTypeProtobuf: true, runtime.ContentTypeYAML: true,
}

// resourceVersionOf reads the resourceVersion of the object a write
// answered: straight from the bytes of its metadata in protobuf
// (wiretrim.ResourceVersion: the answer is not decoded, nor its
// managedFields), else from its metadata as JSON (PartialObjectMetadata, or
// the whole object when the server answered that).
func resourceVersionOf(body []byte) (string, error) {
	if rv, ok := wiretrim.ResourceVersion(body); ok {
		return rv, nil
	}
	var partial struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &partial); err != nil {
		return "", fmt.Errorf("the answer: %v", err)
	}
	return partial.Metadata.ResourceVersion, nil
}
