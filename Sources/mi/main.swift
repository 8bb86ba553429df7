import MICLI

MI.main()
