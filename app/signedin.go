package app

import (
	"context"
	"strconv"
)

const maxInterviewAnswers = 30

func (a *App) freeQueueWeeks(ctx context.Context) int {
	n, err := strconv.Atoi(a.setting(ctx, "free_queue_weeks", "4"))
	if err != nil || n < 0 {
		return 4
	}
	return n
}
