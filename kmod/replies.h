/* SPDX-License-Identifier: GPL-2.0 */
/* What netlink.c and replies.c share: the attributes of each row kind. */
#ifndef _SYSTRACE_REPLIES_H
#define _SYSTRACE_REPLIES_H

#include <net/netlink.h>
#include "core.h"

static inline int st_put_u64(struct sk_buff *skb, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, type, v, pad);
}

int st_nl_put_params(struct sk_buff *skb);
int st_nl_put_session(struct sk_buff *skb, struct st_session *s);
int st_nl_put_proc(struct sk_buff *skb, struct st_proc *p);
int st_nl_put_site(struct sk_buff *skb, struct st_proc *p,
		   struct st_site *site);

#endif
