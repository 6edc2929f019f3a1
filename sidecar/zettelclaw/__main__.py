from zettelclaw.cli.main import main

raise SystemExit(main())
