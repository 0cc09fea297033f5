/** What `sluice --help` prints. */
export const HELP = `sluice: act on every process's rate limits at once, through the store they share
(Redis, PostgreSQL or an SQLite file)

Usage: sluice <command> [arguments] [options]

Commands
  ban <subject> <value> --for <duration> [--reason <text>]
                      429 with Retry-After until it ends          sluice ban ip 203.0.113.7 --for 1h
  unban <subject> <value>                                         sluice unban ip 203.0.113.7
  allow <subject> <value> [--for <duration>] [--reason <text>]
                      every limit skipped                         sluice allow cidr 10.0.0.0/8
  deny <subject> <value> [--for <duration>] [--reason <text>]
                      403                                         sluice deny cidr 198.51.100.0/24
  override <subject> <value> <limit> --for <duration> [--name <limit name>]
                      the subject's limits replaced               sluice override user 42 100/1m --for 30d
                      a user or key may be a pattern (* any run of characters, \\* a star);
                      quote it for the shell           sluice override user 'premium_*' 1000/1m --for 30d
  remove <entry id>   removes any entry (ids as list shows them)  sluice remove allow:cidr:10.0.0.0/8
  list                the entries in force
  inspect <subject> <value>
                      the entries that apply to one subject
  top                 explains where the most-denied subjects are: each process counts its
                      own (LimitOperations#top, the OpenTelemetry gauge
                      sluice.denials.top); nothing is in any store to aggregate: exits 1

  <subject> is ip, cidr, user or key. IPs are grouped as the limiters' keys are (IPv6 by
  /64, IPv4-mapped IPv6 as IPv4); CIDRs are IPv4 or IPv6. <duration>: 30s, 15m, 1h, 30d or ms.
  <limit>: a throttle string as routes take it (100/1m, throttle:60,1).

Store (one of them; a flag wins over the variables)
  --redis <url>        redis:// or rediss:// URL (default: $SLUICE_REDIS_URL)
  --postgres <url>     postgres:// or postgresql:// URL (default: $SLUICE_POSTGRES_URL), on
                       a database where PostgresStore#migrate() ran
  --sqlite <file>      the SQLite file the app's SqliteStore opens (default:
                       $SLUICE_SQLITE_PATH); it must exist
  A password in a URL is used, never printed.

Options
  --cluster            Redis: the URL is one node of a Redis Cluster
  --store-prefix <p>   Redis: RedisStore's own option prefix, if the app set one (default none)
  --schema <name>      PostgreSQL: PostgresStore's schema option (default public)
  --table <name>       PostgreSQL, SQLite: the store's table option (default sluice_limits)
  --prefix <prefix>    the limiters' key prefix (default sl, the middleware's)
  --timeout <ms>       how long to wait for the store (default 5000)
  --json               machine-readable output on stdout (errors stay on stderr)
  -h, --help           this text
  -v, --version        the version

Exit codes
  0  done
  1  runtime error: the store unreachable or failing (an SQLite file or table missing, a
     database never migrated), or a command with nothing to show (top)
  2  usage error: unknown command or option, missing argument, no store or two, a subject,
     CIDR, duration or limit that does not parse
`;
