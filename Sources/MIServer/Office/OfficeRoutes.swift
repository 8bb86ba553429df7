import Foundation
import Hummingbird

/// The office web app's routes: `/login` and `/logout` (CSRF-checked, no session yet), the
/// embedded assets under `/static/`, and the pages, each behind the session cookie and the
/// CSRF check. Each area of the office registers its pages in `pages`.
func officeRoutes(_ services: ServerServices, signIn passwords: SignIn) -> [RouteCollection<ServerContext>] {
    let lifetime = services.configuration.server.tokenMinutes * 60
    let signIn = RouteCollection(context: ServerContext.self)
        .add(middleware: CSRFMiddleware(tokens: services.tokens, now: services.now))
    SignInController(signIn: passwords, views: services.views, tokens: services.tokens,
                     lifetimeSeconds: lifetime, now: services.now).register(on: signIn)

    let assets = RouteCollection(context: ServerContext.self)
    OfficeStatic().register(on: assets)

    let pages = RouteCollection(context: ServerContext.self)
        .add(middleware: OfficeSessionMiddleware(tokens: services.tokens, now: services.now))
        .add(middleware: CSRFMiddleware(tokens: services.tokens, now: services.now))
    SubmissionPageController(views: services.views, repository: services.repository, layout: services.layout,
                             templates: services.templates, review: ReviewPage(service: services.review)).register(on: pages)
    ReviewPage(service: services.review).register(on: pages)
    SubmissionListController(views: services.views, repository: services.repository, templates: services.templates,
                             now: services.now).register(on: pages)
    TemplatesPage(views: services.views, publisher: TemplatePublisher(catalog: services.templates)).register(on: pages)
    StatisticsPage(views: services.views, statistics: services.statistics, repository: services.repository,
                   templatePath: services.configuration.server.paths.template).register(on: pages)
    AuditOfficePage(views: services.views, store: services.audit.store).register(on: pages)
    return [signIn, assets, pages]
}
