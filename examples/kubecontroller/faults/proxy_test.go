package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	"github.com/clonecore/cloneset/examples/kubecontroller/installtest"
)

// proxy is a reverse proxy on loopback between a controller process and
// the API server: the controller talks plain HTTP to it with no
// credentials, and it forwards as a controller's service account (its
// token). Its rule decides, request by request, to forward, to hold
// the request until released, to answer an error without forwarding, or to
// forward and then answer an error (the write done, its response lost).
type proxy struct {
	t       testing.TB
	server  *httptest.Server
	forward *httputil.ReverseProxy

	mu   sync.Mutex
	rule func(r *proxied) verdict
	log  []*proxied
}

// proxied is one request through the proxy.
type proxied struct {
	Method, Path string
	Name         string // metadata.name of a create's body
	Verdict      verdict
	Upstream     int // the API server's status code (0 when not forwarded, or not answered yet)
	Answered     int // the status code the controller got
}

// verdict is what the proxy does with a request.
type verdict struct {
	hold      chan struct{} // when set, wait until it is closed, then forward
	fail      int           // when not 0, answer this code without forwarding
	failAfter int           // when not 0, forward, then answer this code
	// holdAnswer, when set, forwards the request at once and keeps its
	// answer from the controller until it is closed (the write done, its
	// response still on the way).
	holdAnswer chan struct{}
}

// startProxy starts a proxy to the API server of e, forwarding as the
// service account of the n-th controller process, with rule (nil: forward
// everything).
func (e *env) startProxy(n int, rule func(*proxied) verdict) *proxy {
	e.t.Helper()
	cfg := e.identity(n).Config
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		e.t.Fatal(err)
	}
	p := &proxy{t: e.t, rule: rule}
	p.forward = &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		Transport:     transport,
		FlushInterval: -1, // watches stream
		ModifyResponse: func(resp *http.Response) error {
			if pr, ok := resp.Request.Context().Value(proxiedKey{}).(*proxied); ok {
				p.mu.Lock()
				pr.Upstream = resp.StatusCode
				p.mu.Unlock()
			}
			return nil
		},
	}
	p.server = httptest.NewServer(http.HandlerFunc(p.serve))
	e.t.Cleanup(p.server.Close)
	return p
}

type proxiedKey struct{}

// serve applies the rule to one request.
func (p *proxy) serve(w http.ResponseWriter, r *http.Request) {
	pr := &proxied{Method: r.Method, Path: r.URL.Path}
	var body []byte
	if r.Method == http.MethodPost && r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		// JSON or protobuf (controller-runtime sends built-in types as
		// protobuf).
		if obj, _, err := clientgoscheme.Codecs.UniversalDeserializer().Decode(body, nil, nil); err == nil {
			if m, err := meta.Accessor(obj); err == nil {
				pr.Name = m.GetName()
			}
		}
	}
	p.mu.Lock()
	if p.rule != nil {
		pr.Verdict = p.rule(pr)
	}
	p.log = append(p.log, pr)
	p.mu.Unlock()
	v := pr.Verdict
	switch {
	case v.fail != 0:
		p.answer(w, pr, v.fail)
		return
	case v.hold != nil:
		<-v.hold
		// The controller may be gone: the request goes on all the same,
		// as one already sent to the API server would.
		r = r.WithContext(context.WithoutCancel(r.Context()))
	}
	r = r.WithContext(context.WithValue(r.Context(), proxiedKey{}, pr))
	if v.failAfter != 0 {
		// The write must be done: a throttled one (429) is sent again.
		for {
			rec := httptest.NewRecorder()
			p.forward.ServeHTTP(rec, r.Clone(r.Context()))
			if rec.Code != http.StatusTooManyRequests {
				break
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			time.Sleep(100 * time.Millisecond)
		}
		p.answer(w, pr, v.failAfter)
		return
	}
	if v.holdAnswer != nil {
		// Done even when the controller goes away meanwhile.
		rec := httptest.NewRecorder()
		p.forward.ServeHTTP(rec, r.WithContext(context.WithoutCancel(r.Context())))
		<-v.holdAnswer
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		p.mu.Lock()
		pr.Answered = rec.Code
		p.mu.Unlock()
		return
	}
	rec := &statusRecorder{ResponseWriter: w}
	p.forward.ServeHTTP(rec, r)
	p.mu.Lock()
	pr.Answered = rec.code
	p.mu.Unlock()
}

// answer writes an error Status of code.
func (p *proxy) answer(w http.ResponseWriter, pr *proxied, code int) {
	p.mu.Lock()
	pr.Answered = code
	p.mu.Unlock()
	status := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: int32(code),
		Reason: metav1.StatusReasonInternalError, Message: fmt.Sprintf("faults proxy: %d for %s %s", code, pr.Method, pr.Path)}
	if code == http.StatusTooManyRequests {
		status.Reason = metav1.StatusReasonTooManyRequests
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(status)
}

// statusRecorder remembers the status code written through it.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

// Flush lets watches stream through the recorder.
func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// requests returns a copy of the proxy's log.
func (p *proxy) requests() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]proxied, len(p.log))
	for i, pr := range p.log {
		out[i] = *pr
	}
	return out
}

// identity is an identity whose kubeconfig leads to the proxy (plain
// HTTP, no credentials), for id's process.
func (p *proxy) identity(id installtest.Identity) installtest.Identity {
	p.t.Helper()
	path := filepath.Join(p.t.TempDir(), "proxy.kubeconfig")
	if err := controlplane.WriteKubeconfig(path, &rest.Config{Host: p.server.URL}, "proxy"); err != nil {
		p.t.Fatal(err)
	}
	id.Kubeconfig = path
	return id
}

// isPodCreate reports whether a request creates a pod.
func isPodCreate(pr *proxied) bool {
	return pr.Method == http.MethodPost && strings.HasSuffix(pr.Path, "/pods")
}
