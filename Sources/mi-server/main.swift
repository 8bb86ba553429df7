import MIServer

await ServerCommand.start()
