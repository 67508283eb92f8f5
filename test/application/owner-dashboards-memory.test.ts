import { buildContainer } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';
import { describeOwnerDashboards } from './owner-dashboards.js';

describeOwnerDashboards('memory', async () => buildContainer(testSettings(), { storage: 'memory' }));
