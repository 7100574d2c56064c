# Varnish 7 in front of the Pet Store gateway (docs/operations.md, "Behind a CDN").
#
# It keeps what the gateway says a CDN may keep: public GET/HEAD answers with
# `CDN-Cache-Control: max-age=N` (RFC 9213; or `Surrogate-Control`), indexed by their
# `Surrogate-Key` tags with xkey (Debian's varnish-modules), and answers the gateway's purges
# (EDGE_PURGE_KIND=varnish: `PURGE` with `xkey-purge: <tags>`). Everything with a token, and every
# method but GET and HEAD, goes straight to the gateway.
#
#   varnishd -F -a :6081 -f /path/to/default.vcl -s malloc,256m
#   EDGE_CACHE_MAX_AGE_S=300 EDGE_PURGE_URL=http://127.0.0.1:6081/ npm start

vcl 4.1;

import std;
import xkey;

backend gateway {
    .host = "127.0.0.1";
    .port = "4000";
}

# Who may purge: the gateway's hosts.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "xkey-purge is missing"));
        }
        set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged " + req.http.n-gone));
    }
    # Writes, and reads with a token (private answers), are the gateway's alone.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    if (req.http.Authorization) {
        return (pass);
    }
    # Answers do not depend on cookies.
    unset req.http.Cookie;
    return (hash);
}

sub vcl_hash {
    hash_data(req.url);
    # On /graphql the media type asked for is part of the answer.
    if (req.url ~ "^/graphql") {
        hash_data(req.http.Accept);
    }
    return (lookup);
}

sub vcl_backend_response {
    # Kept only with a CDN lifetime: what the gateway gives public answers it may cache.
    if (beresp.status == 200 && beresp.http.CDN-Cache-Control ~ "max-age=[0-9]+") {
        set beresp.ttl = std.duration(
            regsub(beresp.http.CDN-Cache-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
    } else if (beresp.status == 200 && beresp.http.Surrogate-Control ~ "max-age=[0-9]+") {
        set beresp.ttl = std.duration(
            regsub(beresp.http.Surrogate-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
    } else {
        # Not cacheable: remember that for a while, so requests are not queued behind each other.
        set beresp.uncacheable = true;
        set beresp.ttl = 120s;
        return (deliver);
    }
    # A purged answer is gone at once: no stale copy served during a grace period.
    set beresp.grace = 0s;
    # xkey indexes the `xkey` header; the gateway names its tags in Surrogate-Key.
    set beresp.http.xkey = beresp.http.Surrogate-Key;
    # Browsers keep `Cache-Control: no-cache` (revalidate with the ETag): Varnish ignores it here.
    return (deliver);
}

sub vcl_deliver {
    # What this cache did, for operators and the tests: HIT or MISS.
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # What is meant for this cache alone does not go further.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
    unset resp.http.Surrogate-Control;
    unset resp.http.CDN-Cache-Control;
}
