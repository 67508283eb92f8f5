import { buildContainer } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';
import { describeDashboardUseCases } from './dashboard-use-cases.js';

describeDashboardUseCases('memory', async () => buildContainer(testSettings(), { storage: 'memory' }));
