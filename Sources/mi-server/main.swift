import Foundation
import MIServer

exit(await ServerCommand.main(arguments: CommandLine.arguments))
