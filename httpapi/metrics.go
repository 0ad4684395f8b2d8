package httpapi

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the request metrics of a handler: requests by area, route
// pattern, method and status class, and their latency. Make them with
// NewMetrics on the embedding program's registry and pass them in
// Options.Metrics.
type Metrics struct {
	requests *prometheus.CounterVec
	seconds  *prometheus.HistogramVec
}

// NewMetrics registers the request metrics with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "deliverykit", Subsystem: "http", Name: "requests_total",
			Help: "Requests by area, route pattern, method and status class (2xx, 4xx, …)."}, []string{"area", "route", "method", "code"}),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "deliverykit", Subsystem: "http", Name: "request_duration_seconds",
			Help: "Request latency by area, route pattern and method.", Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 12)},
			[]string{"area", "route", "method"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.seconds} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe records one request. Labels are bounded: the route is the
// registered pattern (never the path), an unrouted request is "none", and
// a method no route serves is "other".
func (m *Metrics) observe(info *requestInfo, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	area, route := info.area, info.route
	if route == "" {
		area, route = "none", "none"
	}
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		method = "other"
	}
	if status == 0 {
		status = 200
	}
	m.requests.WithLabelValues(area, route, method, strconv.Itoa(status/100)+"xx").Inc()
	m.seconds.WithLabelValues(area, route, method).Observe(d.Seconds())
}
