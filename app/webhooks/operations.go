package webhooks

import (
	"context"
	"strings"

	"launchdir/app/kernel"
	"launchdir/ops"
)

func notFoundDelivery() error {
	return &ops.Error{Code: ops.CodeNotFound, Detail: "delivery not found on this endpoint",
		Fields: []ops.FieldError{{Field: "delivery_id", Message: "no delivery of this endpoint has this id"}}}
}

// Endpoints is the list answer.
type Endpoints struct {
	Items      []Endpoint `json:"items"`
	EventTypes []string   `json:"event_types" doc:"Every event type an endpoint can subscribe to."`
}

// Operations are the webhooks operations: endpoints and their deliveries.
func (a *Service) Operations() []*ops.Operation {
	id := kernel.PathParam("webhook_id", ops.IntMin(1).Desc("Endpoint id (integer >= 1)."))
	types := strings.Join(kernel.EventTypes, ", ")
	events := ops.Arr(ops.Enum(kernel.EventTypes...), len(kernel.EventTypes)).Desc("Event types: " + types + ".")
	url := ops.Str(500).Min1().Desc("An absolute https URL; private, loopback and link-local targets are refused.")
	desc := ops.Str(200).Desc("What the endpoint is for.")
	return []*ops.Operation{
		{ID: "list_webhooks", Output: ops.Out[Endpoints](), Tag: "webhooks", Method: "GET", Path: "/me/webhooks", Toolset: "listings", Scope: ops.ScopeAccountRead,
			Summary:     "Your webhook endpoints",
			Description: "Your endpoints with their events, status and consecutive failures, and the list of event types.",
			Handler:     a.listWebhooks},
		{ID: "create_webhook", Output: ops.Out[Endpoint](), Tag: "webhooks", Location: "/me/webhooks", Method: "POST", Path: "/me/webhooks", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Status: 201,
			Summary: "Register a webhook endpoint",
			Description: "Events of the listings you own (and your orders) are POSTed to url as JSON {type, timestamp, data}, signed per Standard Webhooks " +
				"(webhook-id, webhook-timestamp, webhook-signature v1 HMAC-SHA256 with the whsec_ secret returned here, once). Failed deliveries are retried " +
				"with backoff for about 3 days; 20 failures in a row turn the endpoint off (you are emailed). site_wide (site team only): every event. At most 10 endpoints.",
			Body:    ops.Obj(ops.R("url", url), ops.R("events", events), ops.P("description", desc), ops.P("site_wide", ops.Bool())),
			Handler: a.createWebhook},
		{ID: "update_webhook", Output: ops.Out[Endpoint](), Tag: "webhooks", Method: "PATCH", Path: "/me/webhooks/:webhook_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Change a webhook endpoint, or turn it on or off",
			Description: "Any of url, events, description; enabled=true turns a disabled endpoint on again (clearing its failures), enabled=false turns it off.",
			Params:      []ops.Param{id},
			Body:        ops.Obj(ops.P("url", url), ops.P("events", events), ops.P("description", desc), ops.P("enabled", ops.Bool())),
			Handler:     a.updateWebhook},
		{ID: "delete_webhook", Output: ops.Out[Endpoint](), Tag: "webhooks", Method: "DELETE", Path: "/me/webhooks/:webhook_id", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary: "Delete a webhook endpoint", Description: "Deletes the endpoint and its delivery log.",
			Params: []ops.Param{id}, Handler: a.deleteWebhook},
		{ID: "rotate_webhook_secret", Output: ops.Out[Endpoint](), Tag: "webhooks", Method: "POST", Path: "/me/webhooks/:webhook_id/rotate", Toolset: "listings",
			Scope: ops.ScopeListingsWrite, Idem: true, Destructive: true,
			Summary:     "Rotate a webhook endpoint's secret",
			Description: "Returns a new whsec_ secret (shown once). For 24 hours requests carry two signatures, the new and the old, so receivers can switch without losing events.",
			Params:      []ops.Param{id}, Handler: a.rotateWebhook},
		{ID: "list_webhook_deliveries", Output: ops.Out[kernel.Page[Delivery]](), Tag: "webhooks", Method: "GET", Path: "/me/webhooks/:webhook_id/deliveries", Toolset: "listings",
			Scope: ops.ScopeAccountRead, Paginated: true,
			Summary:     "An endpoint's delivery log",
			Description: "Deliveries newest first with status (pending, delivered, failed), attempts and each attempt's HTTP status, latency and the first 500 bytes of the answer.",
			Params:      []ops.Param{id}, Handler: a.listDeliveries},
		{ID: "redeliver_webhook", Output: ops.Out[Delivery](), Tag: "webhooks", Method: "POST",
			Path: "/me/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", Toolset: "listings", Scope: ops.ScopeListingsWrite, Idem: true,
			Summary:     "Send a delivery's event again",
			Description: "Queues the same event (same webhook-id, so receivers can deduplicate) as a new delivery, sent at once.",
			Params:      []ops.Param{id, kernel.PathParam("delivery_id", ops.IntMin(1).Desc("Delivery id (integer >= 1)."))},
			Handler:     a.redeliver},
	}
}

func (a *Service) listWebhooks(ctx context.Context, in *ops.Input) (any, error) {
	list, err := a.List(ctx, in.UserID())
	return Endpoints{Items: list, EventTypes: kernel.EventTypes}, err
}

func decodeEndpoint(in *ops.Input) (EndpointInput, error) {
	var e EndpointInput
	err := in.Decode(&e)
	return e, err
}

func (a *Service) createWebhook(ctx context.Context, in *ops.Input) (any, error) {
	e, err := decodeEndpoint(in)
	if err != nil {
		return nil, err
	}
	return a.Create(ctx, in.UserID(), e)
}

func (a *Service) updateWebhook(ctx context.Context, in *ops.Input) (any, error) {
	e, err := decodeEndpoint(in)
	if err != nil {
		return nil, err
	}
	return a.Update(ctx, in.UserID(), in.Int("webhook_id"), e)
}

func (a *Service) deleteWebhook(ctx context.Context, in *ops.Input) (any, error) {
	return a.Delete(ctx, in.UserID(), in.Int("webhook_id"))
}

func (a *Service) rotateWebhook(ctx context.Context, in *ops.Input) (any, error) {
	return a.Rotate(ctx, in.UserID(), in.Int("webhook_id"))
}

func (a *Service) listDeliveries(ctx context.Context, in *ops.Input) (any, error) {
	p, pp := in.Page()
	return a.Deliveries(ctx, in.UserID(), in.Int("webhook_id"), p, pp)
}

func (a *Service) redeliver(ctx context.Context, in *ops.Input) (any, error) {
	return a.Redeliver(ctx, in.UserID(), in.Int("webhook_id"), in.Int("delivery_id"))
}
