package routes_test

// The signed-in operations of issue 22 (comments, notification settings,
// the invoice, webhooks) in the auth matrix, kept apart so the matrix's
// own table stays as it was.
func init() {
	for id, c := range map[string]struct {
		path string
		body any
	}{
		"get_invoice":                  {"/orders/LD-2026-000001/invoice", nil},
		"post_comment":                 {"/listings/quickbase/comments", map[string]any{"body": "b"}},
		"reply_to_comment":             {"/comments/1/replies", map[string]any{"body": "b"}},
		"edit_comment":                 {"/comments/1", map[string]any{"body": "b"}},
		"delete_comment":               {"/comments/1", nil},
		"pin_comment":                  {"/comments/1/pin", map[string]any{"pinned": true}},
		"get_notification_settings":    {"/me/notifications", nil},
		"update_notification_settings": {"/me/notifications", map[string]any{"settings": []any{}}},
		"list_webhooks":                {"/me/webhooks", nil},
		"create_webhook":               {"/me/webhooks", map[string]any{"url": "https://hooks.example.com/x", "events": []any{"order.paid"}}},
		"update_webhook":               {"/me/webhooks/1", map[string]any{"enabled": true}},
		"delete_webhook":               {"/me/webhooks/1", nil},
		"rotate_webhook_secret":        {"/me/webhooks/1/rotate", nil},
		"list_webhook_deliveries":      {"/me/webhooks/1/deliveries", nil},
		"redeliver_webhook":            {"/me/webhooks/1/deliveries/1/redeliver", nil},
	} {
		signedInPaths[id] = struct {
			path string
			body any
		}{c.path, c.body}
	}
}
