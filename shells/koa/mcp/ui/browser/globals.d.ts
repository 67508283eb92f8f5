/** The settings the view's HTML inlines before its scripts (dashboard-view-html.ts). */
declare var DASHPUB_VIEW_CONFIG: { serviceName: string; dashboardDomain: string; specPageOpening: string };
